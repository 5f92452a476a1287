import type { Job } from '../../domain/job.js';

/**
 * What every kind's views share. Each view returns exactly the fields the spec lists for its response, plus the
 * documented extensions: `progress` while ongoing, `errorReason` on failed jobs.
 */

/** `progress` from 0 to 1 while `ongoing` (0 until the engine first reports); absent in every other state. */
export function progressOf(job: Job): { progress?: number } {
  if (job.status !== 'ongoing') return {};
  const { done = 0, total = 0 } = job.progress ?? {};
  const fraction = total > 0 && Number.isFinite(done / total) ? done / total : 0;
  return { progress: Math.min(1, Math.max(0, fraction)) };
}

/** `errorReason` of a job in `error`; nothing otherwise. */
export const reasonOf = (job: Job) => (job.status === 'error' && job.failure ? { errorReason: { ...job.failure } } : {});

/** The fields every job view starts with. */
export const stampsOf = (job: Job) => ({ uid: job.uid, status: job.status, createdAt: job.createdAt, updatedAt: job.updatedAt });

/** The job's result once it is `completed` (links are empty strings before). */
export const usableResult = <J extends Job>(job: J): J['result'] | undefined => (job.status === 'completed' ? job.result : undefined);
