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

/**
 * Idempotency keys (`Idempotency-Key` on creations and uploads): a key is reserved by the one request that does the
 * work, then holds its answer for a while. Keys are opaque strings (the service hashes the owner with the key the
 * client sent); nothing about them needs to be atomic with the job records, so this store may live anywhere the
 * processes that share the jobs can all reach. `idempotencyStoreSuite` in `virtual-anchor/testing` checks one.
 */
export interface IdempotencyStore {
  /**
   * Reserves `key` for a request with `fingerprint` for `reserveMs` (so a crashed request frees it), or tells what
   * holds it. Of racing reservations of a free key exactly one gets `reserved`.
   */
  reserve(key: string, fingerprint: string, reserveMs: number): Promise<IdempotencyReservation>;
  /** Stores the answer of a reserved key, kept `ttlMs`. */
  save(key: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void>;
  /** Frees a reserved key that has no answer (the request failed; a corrected retry may use the key). A key with an answer stays. */
  release(key: string): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** The stored value of an idempotency key (JSON in Redis). */
export interface IdempotencyEntry {
  fingerprint: string;
  answer?: StoredAnswer;
}

/** Reads a reservation from a stored entry. */
export function reservationOf(entry: IdempotencyEntry): IdempotencyReservation {
  return entry.answer ? { state: 'done', fingerprint: entry.fingerprint, answer: entry.answer } : { state: 'in_flight', fingerprint: entry.fingerprint };
}
