import type { Job } from '../../domain/job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { JobQueue } from '../../queue/job-queue.js';
import type { Logger } from '../../domain/logger.js';

/** Message kept on jobs ended by `dangerousFlag`. */
export const DANGEROUS_FLAG_MESSAGE = 'dangerousFlag was set: the job was ended with an error on purpose (test aid)';

/**
 * The spec's test aid: a job created with `dangerousFlag: true` starts (`ongoing`) and is moved to
 * `error` once `delayMs` have passed since its creation. It never reaches an engine, so it neither
 * spends compute nor holds a queue slot. The deadline is the queue's: a timer of the process with the
 * in-process queue, a delayed BullMQ job (surviving any process) with the distributed one.
 */
export class DangerousFlag {
  constructor(
    private readonly store: JobStore,
    private readonly queue: JobQueue,
    private readonly delayMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts the job and schedules its deadline (counted from `createdAt`, so a restart keeps it). Never rejects. */
  async arm(job: Job): Promise<void> {
    try {
      await this.store.transition(job.uid, ['pending'], 'ongoing');
      await this.queue.scheduleDeadline(job, Date.parse(job.createdAt) + this.delayMs);
    } catch (error) {
      // Recovery ends it once the deadline passed (counted from createdAt).
      this.logger.warn('could not start a dangerousFlag job; the recovery sweep will end it', { uid: job.uid, error: String(error) });
    }
  }
}

/** Whether a job carries the flag. */
export function isDangerous(job: Job): boolean {
  return job.kind === 'avatarVideo' && job.input.dangerousFlag;
}
