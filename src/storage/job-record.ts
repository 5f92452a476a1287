import type { Job, JobPatch, JobStatus, ListQuery } from '../domain/job.js';

/**
 * Pure helpers shared by the {@link JobStore} implementations, so both apply patches,
 * order listings and compute pages identically.
 */

/** How long a job record is kept after it reached a final state, by default: 7 days. */
export const DEFAULT_RECORD_RETENTION_MS = 7 * 24 * 3_600_000;

/** Sort key of a job in the listing indexes: `createdAt` in epoch milliseconds. */
export function createdAtMs(job: Job): number {
  const ms = Date.parse(job.createdAt);
  if (!Number.isFinite(ms)) throw new RangeError(`job ${job.uid} has an invalid createdAt: ${job.createdAt}`);
  return ms;
}

/**
 * The record after a write: `patch` merged over `job`. With `to`, the status changes and
 * `updatedAt` becomes `now`; without it (a plain patch) both stay as they are.
 */
export function applyPatch(job: Job, patch: JobPatch | undefined, to?: { status: JobStatus; now: Date }): Job {
  // The spread keeps `kind`, so the result is still the same member of the union; TypeScript
  // cannot see that through `result`, whose patch type is the union of both kinds' results.
  const next = { ...job, ...patch } as Job;
  if (to) {
    next.status = to.status;
    next.updatedAt = to.now.toISOString();
    if (to.status === 'ongoing') next.startedAt = next.updatedAt;
  }
  return next;
}

/** Zero-based offset and size of the requested page (pages are 1-based). */
export function pageWindow(query: Pick<ListQuery, 'page' | 'perPage'>): { offset: number; count: number } {
  const { page, perPage } = query;
  if (!Number.isSafeInteger(page) || page < 1) throw new RangeError(`page must be an integer >= 1, got ${page}`);
  if (!Number.isSafeInteger(perPage) || perPage < 1) {
    throw new RangeError(`perPage must be an integer >= 1, got ${perPage}`);
  }
  return { offset: (page - 1) * perPage, count: perPage };
}
