import type { JobStatus } from './job.js';

/**
 * The one transition table of SPEC §3. Every status write goes through the job store's
 * compare-and-set with a `from` list taken from here, so a final state is never overwritten.
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = Object.freeze({
  pending: ['ongoing', 'error'],
  ongoing: ['completed', 'error'],
  completed: [],
  error: [],
});

/** States at which polling stops. */
export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'error'];

/** The states a job may be in to move to `to` (the `from` list of a compare-and-set). */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(TRANSITIONS) as JobStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}

export function isFinal(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status);
}
