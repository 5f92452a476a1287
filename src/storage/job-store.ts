import type { StoreUnavailableError } from './store-unavailable-error.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import type { IdempotencyStore } from './idempotency-store.js';
import type { Job, JobExpectation, JobKind, JobPatch, JobStatus, ListQuery, ListResult } from '../domain/job.js';

/**
 * Persistent job records with an index for paginated, status-filtered listing.
 *
 * Implementations must be safe when several processes share one backend:
 * `create` never loses a record from the index, and `transition` is a compare-and-set
 * on `status`, so a late worker can never overwrite a final state.
 *
 * When the backend cannot be reached in time, methods reject with an error named
 * `StoreUnavailableError` (see {@link StoreUnavailableError}); nothing of that call runs later.
 *
 * Records only: the webhook outbox ({@link WebhookOutbox}) and idempotency keys ({@link IdempotencyStore}) are
 * ports of their own. A store that has an outbox writes it in `transition` (see {@link WebhookOutbox}).
 */
export interface JobStore {
  /** Stores a new job (its status is `pending`) and indexes it. */
  create(job: Job): Promise<void>;
  /** Returns the job, or `undefined`. When `owner` is given, a job of another owner is `undefined`. */
  get(uid: string, owner?: string): Promise<Job | undefined>;
  /**
   * Atomically moves a job from one of `from` to `to`, applying `patch` and setting `updatedAt`.
   * Returns the updated job, or `undefined` when the job is missing or its status is not in `from`.
   * Only moves of the transition table (`TRANSITIONS`) may happen: a status of `from` the table does not
   * allow toward `to` must be ignored (the built-in stores do this in `CasJobStore`).
   * With `expect`, the record must also match it (its `attempt`), in the same atomic step.
   */
  transition(uid: string, from: readonly JobStatus[], to: JobStatus, patch?: JobPatch, expect?: JobExpectation): Promise<Job | undefined>;
  /**
   * Applies `patch` without changing status, only while the status is in `whileIn` (and the record matches
   * `expect`, when given). Returns false otherwise.
   */
  patch(uid: string, whileIn: readonly JobStatus[], patch: JobPatch, expect?: JobExpectation): Promise<boolean>;
  /** One page of an owner's jobs of one kind, newest first, optionally filtered by status. */
  list(query: ListQuery): Promise<ListResult<Job>>;
  /** Uids of all jobs (every owner) of a status, for recovery and retention sweeps. */
  uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]>;
  /**
   * Checks that the backend answers (optional: a store without it is taken as always reachable).
   * Rejects with a `StoreUnavailableError` when it does not.
   */
  ping?(): Promise<void>;
  /**
   * Whether the store's last contact with its backend failed and nothing has succeeded since, known without a round
   * trip (optional, and only with {@link ping}: a store without it is taken as reachable). A caller about to do costly
   * work before its first use of the store (a creation's downloads and input checks) then confirms with {@link ping}
   * first, so that a request during an outage is answered 503 at once instead of after that work.
   */
  suspectedDown?(): boolean;
  /**
   * Deletes the records whose retention after their final state (`completed`/`error`) has passed,
   * with every index entry of theirs; returns how many (optional: a store without it keeps records).
   * A `kept` record never expires.
   * Listings and totals never show such a record, even before this ran.
   */
  deleteExpired?(): Promise<number>;
  /**
   * Deletes the record with every index entry of it, whatever its status; false when it was missing. For records
   * that do not expire (`kept`: an avatar's preparation, deleted with the avatar).
   */
  delete(uid: string): Promise<boolean>;
  /** Releases connections. */
  close(): Promise<void>;
}
