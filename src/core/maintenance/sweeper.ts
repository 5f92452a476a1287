import type { BlobStore } from '../../storage/blob-store.js';
import type { Logger } from '../logger.js';
import type { Recovery } from './recovery.js';

/**
 * Runs retention and recovery at start and then every `intervalMs`. Expiry dates live with the blobs
 * (on disk), so deletion resumes after a restart.
 */
export class Sweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly blobs: BlobStore,
    private readonly recovery: Recovery,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** One pass: delete expired files, then recover stuck jobs. Never rejects; overlapping calls share one pass. */
  sweep(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      const expired = await this.blobs.expired(new Date());
      await Promise.all(expired.map((id) => this.blobs.delete(id)));
      if (expired.length) this.logger.info('retention deleted files', { count: expired.length });
    } catch (error) {
      this.logger.error('retention sweep failed', { error: String(error) });
    }
    try {
      await this.recovery.run();
    } catch (error) {
      this.logger.error('job recovery failed', { error: String(error) });
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
