import type { StoreUnavailableError } from './store-unavailable-error.js';
import type { ClaimedDelivery, IdempotencyReservation, StoredAnswer } from './store-extensions.js';
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
   * Deletes the records whose retention after their final state (`completed`/`error`) has passed,
   * with every index entry of theirs; returns how many (optional: a store without it keeps records).
   * Listings and totals never show such a record, even before this ran.
   */
  deleteExpired?(): Promise<number>;
  /**
   * Webhook outbox (optional: without it `webhookUrl` is refused, and `webhooks.secret` set is an OptionsError at
   * start-up). The store queues a delivery, due at once,
   * in the same atomic write that first moves a job with a `webhook` to a final state. This claims up to
   * `limit` deliveries due at `nowMs`, leasing each until `nowMs + leaseMs` (no other claim returns it
   * before then, so two processes never send one attempt at the same time; a process that dies mid-send
   * leaves it to be claimed again when the lease ends).
   */
  claimWebhooks?(nowMs: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Ends a claimed delivery: `nextDueMs` schedules its next attempt, `undefined` removes it (delivered or given up). */
  settleWebhook?(uid: string, nextDueMs: number | undefined): Promise<void>;
  /**
   * Idempotency keys (optional: without them the `Idempotency-Key` header is ignored). Reserves `key` for a
   * request with `fingerprint` for `reserveMs` (so a crashed request frees it), or tells what holds it.
   */
  reserveIdempotencyKey?(key: string, fingerprint: string, reserveMs: number): Promise<IdempotencyReservation>;
  /** Stores the answer of a reserved key, kept `ttlMs`. */
  saveIdempotentAnswer?(key: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void>;
  /** Frees a reserved key that has no answer (the request failed; a corrected retry may use the key). */
  releaseIdempotencyKey?(key: string): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
