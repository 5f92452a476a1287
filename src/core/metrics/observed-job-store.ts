import type { Job, JobExpectation, JobKind, JobPatch, JobStatus, ListQuery, ListResult } from '../../domain/job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { MetricsRecorder } from './metrics-recorder.js';

/** Input media seconds of a job (0 when unknown). */
const inputSeconds = (job: Job): number => job.input.durationSec ?? 0;

/**
 * Told of every successful transition with the job as written and the statuses it was allowed to move from.
 * Must not throw.
 */
export type TransitionObserver = (job: Job, to: JobStatus, from: readonly JobStatus[]) => void;

/**
 * A {@link JobStore} that reports what passes through it: to a {@link MetricsRecorder} (when given) creations,
 * every successful transition, and the time from `ongoing` to a final state (read from the record); and every
 * successful transition to `observer` (the job announcements). It changes nothing it forwards, so the job runner
 * and the service need no metrics or announcement code.
 */
export class ObservedJobStore implements JobStore {
  constructor(
    private readonly inner: JobStore,
    private readonly metrics?: MetricsRecorder,
    private readonly observer?: TransitionObserver,
  ) {}

  async create(job: Job): Promise<void> {
    await this.inner.create(job);
    this.metrics?.jobReached(job.kind, job.status);
  }

  get(uid: string, owner?: string): Promise<Job | undefined> {
    return this.inner.get(uid, owner);
  }

  async transition(
    uid: string,
    from: readonly JobStatus[],
    to: JobStatus,
    patch?: JobPatch,
    expect?: JobExpectation,
  ): Promise<Job | undefined> {
    const job = await this.inner.transition(uid, from, to, patch, expect);
    if (!job) return job;
    this.observer?.(job, to, from);
    if (!this.metrics) return job;
    this.metrics.jobReached(job.kind, to);
    // The record says when its run began (the store stamps `startedAt` on every move into `ongoing`), whichever
    // process made that move.
    if ((to === 'completed' || to === 'error') && job.startedAt) {
      const seconds = Math.max(0, Date.parse(job.updatedAt) - Date.parse(job.startedAt)) / 1000;
      this.metrics.jobFinished(job.kind, to, seconds, inputSeconds(job));
    }
    return job;
  }

  patch(uid: string, whileIn: readonly JobStatus[], patch: JobPatch, expect?: JobExpectation): Promise<boolean> {
    return this.inner.patch(uid, whileIn, patch, expect);
  }

  list(query: ListQuery): Promise<ListResult<Job>> {
    return this.inner.list(query);
  }

  uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]> {
    return this.inner.uidsByStatus(status, kind);
  }

  async ping(): Promise<void> {
    await this.inner.ping?.();
  }

  suspectedDown(): boolean {
    return this.inner.suspectedDown?.() ?? false;
  }

  async deleteExpired(): Promise<number> {
    return (await this.inner.deleteExpired?.()) ?? 0;
  }

  delete(uid: string): Promise<boolean> {
    return this.inner.delete(uid);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
