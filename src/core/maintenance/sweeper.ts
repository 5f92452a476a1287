import type { BlobStore } from '../../storage/blob-store.js';
import type { JobStore } from '../../storage/job-store.js';
import { isStoreUnavailable } from '../../storage/store-unavailable-error.js';
import type { Logger } from '../../domain/logger.js';
import type { Recovery } from './recovery.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** A named step of each sweep pass; a failure is logged and the pass goes on. */
export interface SweepStep {
  name: string;
  run(): Promise<unknown>;
}

/** Settings of a {@link Sweeper}. */
export interface SweeperSettings {
  /** Time between passes (`retention.sweepIntervalMs`). */
  intervalMs: number;
}

/**
 * Runs retention and recovery at start and then every `intervalMs`. Expiry dates live with the blobs
 * (on disk) and with the job records (in their store), so deletion resumes after a restart.
 */
@injectable()
export class Sweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    /** Job records to expire (a store without `deleteExpired` keeps its records). */
    @inject(SERVICES.JobStore) private readonly records: JobStore,
    @inject(SERVICES.Recovery) private readonly recovery: Recovery,
    /** More steps run after recovery on each pass (catalogue avatars whose preparation is not stored yet). */
    @inject(SERVICES.SweepSteps) private readonly extraSteps: readonly SweepStep[],
    @inject(SERVICES.SweeperSettings) private readonly settings: SweeperSettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.settings.intervalMs);
    this.timer.unref();
  }

  /** One pass: delete expired files and job records, then recover stuck jobs. Never rejects; overlapping calls share one pass. */
  sweep(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    await this.step('retention sweep', async () => {
      const expired = await this.blobs.expired(new Date());
      await Promise.all(expired.map((id) => this.blobs.delete(id)));
      if (expired.length) this.logger.info('retention deleted files', { count: expired.length });
    });
    await this.step('job record expiry', async () => {
      const count = (await this.records.deleteExpired?.()) ?? 0;
      if (count) this.logger.info('retention deleted job records', { count });
    });
    await this.step('job recovery', () => this.recovery.run());
    for (const extra of this.extraSteps) await this.step(extra.name, extra.run);
  }

  /**
   * Runs one step; a failure is logged and the pass goes on. While the job store is unreachable the
   * store has said so once already, so each pass adds only a debug line.
   */
  private async step(name: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (isStoreUnavailable(error)) this.logger.debug(`${name} skipped: the job store is unreachable`, { error: String(error) });
      else this.logger.error(`${name} failed`, { error: String(error) });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
