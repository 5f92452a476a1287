import type { Job, JobExpectation, JobKind, JobPatch, JobStatus, ListQuery, ListResult } from '../domain/job.js';
import type { JobStore } from './job-store.js';
import { allowedSources } from '../domain/state-machine.js';
import { applyPatch } from './job-record.js';

/**
 * What the job stores share: `get`, `transition` and `patch` written once on top of two
 * primitives, a plain read and a guarded compare-and-set update.
 */
export abstract class CasJobStore implements JobStore {
  readonly #now: () => Date;

  /** @param now Clock used for `updatedAt` on transitions. */
  protected constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  /** The stored record, or `undefined`. */
  protected abstract read(uid: string): Promise<Job | undefined>;

  /**
   * Atomically: when the job exists, its status is in `allowed` and it passes `accept` (when given),
   * stores `compute(job)` (keeping indexes in step) and returns it; otherwise returns `undefined`.
   */
  protected abstract update(
    uid: string,
    allowed: readonly JobStatus[],
    compute: (job: Job) => Job,
    accept?: (job: Job) => boolean,
  ): Promise<Job | undefined>;

  abstract create(job: Job): Promise<void>;
  abstract list(query: ListQuery): Promise<ListResult<Job>>;
  abstract uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]>;
  abstract delete(uid: string): Promise<boolean>;
  abstract close(): Promise<void>;

  /** {@inheritDoc JobStore.get} */
  async get(uid: string, owner?: string): Promise<Job | undefined> {
    const job = await this.read(uid);
    if (!job || (owner !== undefined && job.owner !== owner)) return undefined;
    return job;
  }

  /**
   * {@inheritDoc JobStore.transition} Only the moves of the transition table (`domain/state-machine.ts`)
   * happen: states of `from` the table does not allow toward `to` are ignored, so a job in such a
   * state is left as it is and the call returns `undefined`, like any lost compare-and-set.
   */
  async transition(
    uid: string,
    from: readonly JobStatus[],
    to: JobStatus,
    patch?: JobPatch,
    expect?: JobExpectation,
  ): Promise<Job | undefined> {
    const allowed = allowedSources(from, to);
    if (allowed.length === 0) return undefined;
    return this.update(uid, allowed, (job) => applyPatch(job, patch, { status: to, now: this.#now() }), matches(expect));
  }

  /** {@inheritDoc JobStore.patch} Leaves `updatedAt` unchanged. */
  async patch(uid: string, whileIn: readonly JobStatus[], patch: JobPatch, expect?: JobExpectation): Promise<boolean> {
    return (await this.update(uid, whileIn, (job) => applyPatch(job, patch), matches(expect))) !== undefined;
  }
}

/** The record test of an expectation: `attempt` equal (a record without one is at attempt 0). */
function matches(expect: JobExpectation | undefined): ((job: Job) => boolean) | undefined {
  if (expect?.attempt === undefined) return undefined;
  const attempt = expect.attempt;
  return (job) => (job.attempt ?? 0) === attempt;
}
