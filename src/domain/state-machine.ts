import type { JobStatus } from './job.js';

/**
 * The one transition table of SPEC §3, and the only place that says which moves are allowed.
 * Every status write goes through the job store's compare-and-set, which refuses any move this
 * table does not list (see {@link allowedSources}), so a final state is never overwritten.
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = Object.freeze({
  pending: ['ongoing', 'error'],
  // `ongoing → ongoing`: another worker takes over a run whose worker died (a queue with retries); the
  // status the client sees does not change, only the record's `attempt` (the take-over guards on it).
  ongoing: ['ongoing', 'completed', 'error'],
  completed: [],
  error: [],
});

/** States at which polling stops. */
export const FINAL_STATUSES: readonly JobStatus[] = ['completed', 'error'];

/** The state a job is in while an engine works on it: heartbeat and progress are written only then. */
export const RUNNING_STATUSES: readonly JobStatus[] = ['ongoing'];

/** The states a job may be in to move to `to` (the `from` list of a compare-and-set). */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(TRANSITIONS) as JobStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}

/**
 * The members of a caller's `from` list from which the table allows moving to `to`: what a store's
 * compare-and-set may accept. A `from` naming a state the table does not allow (a final one, or `to`
 * itself) is dropped, so no caller can make the store perform a move outside the table.
 */
export function allowedSources(from: readonly JobStatus[], to: JobStatus): JobStatus[] {
  return from.filter((status) => TRANSITIONS[status]?.includes(to));
}

export function isFinal(status: JobStatus): boolean {
  return FINAL_STATUSES.includes(status);
}
