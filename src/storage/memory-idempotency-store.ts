import { reservationOf, type IdempotencyEntry, type IdempotencyReservation, type IdempotencyStore, type StoredAnswer } from './idempotency-store.js';

/** Options of {@link MemoryIdempotencyStore}. */
export interface MemoryIdempotencyStoreOptions {
  /** Clock that reservations and answers lapse by; defaults to the system clock. */
  now?: () => Date;
}

/**
 * An {@link IdempotencyStore} for one process. Answers are copied in and out (never shared with the caller).
 * Expired keys are dropped at most once a minute, when a key is reserved: bounded memory without a timer.
 * Use {@link RedisIdempotencyStore} when several processes serve one API.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  /** Key → entry and expiry (epoch ms). */
  readonly #keys = new Map<string, { entry: IdempotencyEntry; expiresAtMs: number }>();
  readonly #clock: () => Date;
  /** When expired keys are next looked for. */
  #nextSweepMs = 0;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.#clock = options.now ?? (() => new Date());
  }

  /** {@inheritDoc IdempotencyStore.reserve} */
  async reserve(key: string, fingerprint: string, reserveMs: number): Promise<IdempotencyReservation> {
    const now = this.#clock().getTime();
    const held = this.#keys.get(key);
    if (held && held.expiresAtMs > now) return structuredClone(reservationOf(held.entry));
    this.#keys.set(key, { entry: { fingerprint }, expiresAtMs: now + reserveMs });
    this.#forgetExpired(now);
    return { state: 'reserved' };
  }

  /** {@inheritDoc IdempotencyStore.save} */
  async save(key: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    this.#keys.set(key, { entry: { fingerprint, answer: structuredClone(answer) }, expiresAtMs: this.#clock().getTime() + ttlMs });
  }

  /** {@inheritDoc IdempotencyStore.release} */
  async release(key: string): Promise<void> {
    if (!this.#keys.get(key)?.entry.answer) this.#keys.delete(key);
  }

  /** {@inheritDoc IdempotencyStore.close} Nothing to release. */
  async close(): Promise<void> {}

  #forgetExpired(now: number): void {
    if (now < this.#nextSweepMs) return;
    this.#nextSweepMs = now + 60_000;
    for (const [key, held] of this.#keys) if (held.expiresAtMs <= now) this.#keys.delete(key);
  }
}
