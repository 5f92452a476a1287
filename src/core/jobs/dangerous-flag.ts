import type { Job } from '../../domain/job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { Logger } from '../../domain/logger.js';
import type { JobEnding } from './job-ports.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** Message kept on jobs ended by `dangerousFlag`. */
export const DANGEROUS_FLAG_MESSAGE = 'dangerousFlag was set: the job was ended with an error on purpose (test aid)';

/** Settings of a {@link DangerousFlag}. */
export interface DangerousFlagSettings {
  /** How long after its creation a flagged job ends (`dangerousFlagDelayMs`). */
  delayMs: number;
}

/**
 * The spec's test aid, as an ordinary delayed failure of the job: a job created with `dangerousFlag: true` starts
 * (`ongoing`) and is moved to `error` once `delayMs` have passed since its creation. It never reaches a queue or an
 * engine, so it neither spends compute nor holds a slot. The deadline is a timer of the process that armed it;
 * when that process dies first, the recovery sweep of any process ends the job once it is due (and arms its own
 * timer for one not yet due), so the deadline only ever comes late by up to a sweep interval, never early. Ending it
 * is a compare-and-set like any other end: two processes that both arm it end it once.
 */
@injectable()
export class DangerousFlag {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    /** Ends a due job in `error` (`dangerous_flag`). */
    @inject(SERVICES.JobEnding) private readonly jobs: JobEnding,
    @inject(SERVICES.DangerousFlagSettings) private readonly settings: DangerousFlagSettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /** When the flagged `job` is due to end (epoch ms): `delayMs` after its creation, whichever process armed it. */
  dueAt(job: Job): number {
    return Date.parse(job.createdAt) + this.settings.delayMs;
  }

  /** Ends the flagged job in `error` (`dangerous_flag`); false when it was final already. */
  end(uid: string): Promise<boolean> {
    return this.jobs.fail(uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE);
  }

  /**
   * Starts the job (when it is still `pending`) and arms its deadline here, counted from `createdAt` so that a job
   * armed again by recovery keeps it. Never rejects.
   */
  async arm(job: Job): Promise<void> {
    try {
      if (job.status === 'pending') await this.store.transition(job.uid, ['pending'], 'ongoing');
    } catch (error) {
      // Recovery ends it once the deadline passed (counted from createdAt).
      this.logger.warn('could not start a dangerousFlag job; the recovery sweep will end it', { uid: job.uid, error: String(error) });
    }
    if (this.timers.has(job.uid)) return;
    const timer = setTimeout(() => {
      this.timers.delete(job.uid);
      void this.end(job.uid).catch((error: unknown) => {
        this.logger.warn('could not end a dangerousFlag job; the recovery sweep will', { uid: job.uid, error: String(error) });
      });
    }, Math.max(0, this.dueAt(job) - Date.now()));
    timer.unref();
    this.timers.set(job.uid, timer);
  }

  /** Drops the deadlines armed here (shutdown: recovery in another process, or the next start, takes them over). */
  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** Whether a job carries the flag (any kind whose input has `dangerousFlag: true`). */
export function isDangerous(job: Job): boolean {
  return job.input.dangerousFlag === true;
}
