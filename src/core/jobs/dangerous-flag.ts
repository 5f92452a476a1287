import type { Job } from '../job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { Logger } from '../logger.js';
import { sourcesOf } from '../state-machine.js';
import type { JobRunner } from './job-runner.js';

/** Message kept on jobs ended by `dangerousFlag`. */
export const DANGEROUS_FLAG_MESSAGE = 'dangerousFlag was set: the job was ended with an error on purpose (test aid)';

/**
 * The spec's test aid: a job created with `dangerousFlag: true` starts (`ongoing`) and is moved to
 * `error` once `delayMs` have passed since its creation. It never reaches an engine, so it neither
 * spends compute nor holds a queue slot.
 */
export class DangerousFlagTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly store: JobStore,
    private readonly runner: JobRunner,
    private readonly delayMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts the job and arms its timer (counted from `createdAt`, so a restart keeps the deadline). */
  arm(job: Job): void {
    if (this.timers.has(job.uid)) return;
    this.store.transition(job.uid, sourcesOf('ongoing'), 'ongoing').catch((error: unknown) => {
      this.logger.warn('could not start a dangerousFlag job', { uid: job.uid, error: String(error) });
    });
    const wait = Math.max(0, Date.parse(job.createdAt) + this.delayMs - Date.now());
    const timer = setTimeout(() => {
      this.timers.delete(job.uid);
      this.runner.fail(job.uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE).catch((error: unknown) => {
        // Recovery ends it on a later sweep (the flag's deadline is counted from createdAt).
        this.logger.error('could not end a dangerousFlag job', { uid: job.uid, error: String(error) });
      });
    }, wait);
    timer.unref();
    this.timers.set(job.uid, timer);
  }

  has(uid: string): boolean {
    return this.timers.has(uid);
  }

  close(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}

/** Whether a job carries the flag. */
export function isDangerous(job: Job): boolean {
  return job.kind === 'avatarVideo' && job.input.dangerousFlag;
}
