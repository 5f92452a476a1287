import type { Job, JobExpectation } from '../../domain/job.js';

/** Ends a job in `error` from any non-final state, stopping its engine when it runs in this process (the job runner). */
export interface JobEnding {
  /** False when the job was final already (or, with `expect`, another attempt holds it). */
  fail(uid: string, code: string, message: string, expect?: JobExpectation): Promise<boolean>;
}

/** Stores and queues jobs the service makes itself (avatar preparations), and ends them (the job service). */
export interface JobScheduling {
  /** Stores a new `pending` job and queues it; a job the queue could not take stays `pending` for recovery. */
  schedule(job: Job): Promise<void>;
  /** Ends a `pending` or `ongoing` job in `error` with `code` and drops its queue entry; false when it was final already. */
  end(uid: string, code: string, message: string): Promise<boolean>;
}
