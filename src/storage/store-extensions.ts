/**
 * Types of the optional {@link JobStore} parts behind webhooks (a delivery outbox) and idempotent requests
 * (remembered answers). Both live in the job store, so they survive a restart and are shared by every
 * process on one Redis.
 */

/** One webhook delivery claimed from the outbox: the job it announces and which attempt this is (1-based). */
export interface ClaimedDelivery {
  /** The job's uid (a job has at most one delivery: its first final state). */
  uid: string;
  /** 1 for the first attempt; counts every claim, including claims by a process that died before settling. */
  attempt: number;
}

/** An answer remembered for an idempotency key. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** What reserving an idempotency key found. */
export type IdempotencyReservation =
  /** The key was free and is now reserved for this request (do the work, then save or release). */
  | { state: 'reserved' }
  /** Another request holds the key and has not answered yet. */
  | { state: 'in_flight'; fingerprint: string }
  /** A request with this key answered already. */
  | { state: 'done'; fingerprint: string; answer: StoredAnswer };

/** The stored value of an idempotency key (JSON in Redis). */
export interface IdempotencyEntry {
  fingerprint: string;
  answer?: StoredAnswer;
}

/** Reads a reservation from a stored entry. */
export function reservationOf(entry: IdempotencyEntry): IdempotencyReservation {
  return entry.answer ? { state: 'done', fingerprint: entry.fingerprint, answer: entry.answer } : { state: 'in_flight', fingerprint: entry.fingerprint };
}
