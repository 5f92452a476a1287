import { silentLogger, type Logger } from '../domain/logger.js';
import { reservationOf, type IdempotencyEntry, type IdempotencyReservation, type IdempotencyStore, type StoredAnswer } from './idempotency-store.js';
import { DEFAULT_REDIS_TIMEOUTS, RedisConnection, type RedisTimeouts } from './redis-connection.js';

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /** Redis URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (followed by `::`). Default `virtual-anchor`. Must not be empty. */
  namespace?: string;
  /** Connect and command timeouts. Default 2 000 ms each. */
  timeouts?: Partial<RedisTimeouts>;
  /** Where the store says that Redis became unreachable and reachable again. Default: silent. */
  logger?: Logger;
}

/**
 * Deletes an idempotency key only while it is a reservation (its JSON has no `answer`), so a failed request
 * never deletes the answer a concurrent winner saved.
 *
 * KEYS[1]  the idempotency key
 */
const RELEASE_RESERVATION_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if cjson.decode(raw).answer then return 0 end
return redis.call('DEL', KEYS[1])
`;

/**
 * An {@link IdempotencyStore} on Redis, shared by every process on it: one key per idempotency key,
 * `<namespace>::idempotency:<key>`, holding JSON `{ fingerprint, answer? }` with a TTL (Redis expires it).
 * Reserving is `SET NX PX`; releasing is one Lua script. Its own connection, with the job store's failure
 * behaviour (timeouts, no offline queue, `StoreUnavailableError`); {@link RedisIdempotencyStore.close} ends it.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  /** The namespace every key of this store starts with. */
  readonly namespace: string;
  readonly #redis: RedisConnection;

  constructor(options: RedisIdempotencyStoreOptions = {}) {
    this.namespace = options.namespace ?? 'virtual-anchor';
    if (this.namespace === '') throw new RangeError('namespace must not be empty');
    const timeouts = { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts };
    this.#redis = new RedisConnection(options.url ?? 'redis://127.0.0.1:6379', timeouts, options.logger ?? silentLogger, 'idempotency store');
  }

  /** {@inheritDoc IdempotencyStore.reserve} `SET NX` with a TTL; a key freed between the SET and the read is tried again. */
  async reserve(key: string, fingerprint: string, reserveMs: number): Promise<IdempotencyReservation> {
    const redisKey = this.#key(key);
    const entry: IdempotencyEntry = { fingerprint };
    for (let attempt = 0; attempt < 3; attempt++) {
      const set = await this.#redis.run('an idempotency key', (client) => client.set(redisKey, JSON.stringify(entry), { NX: true, PX: reserveMs }));
      if (set === 'OK') return { state: 'reserved' };
      const raw = await this.#redis.run('an idempotency key', (client) => client.get(redisKey));
      if (raw !== null) return reservationOf(JSON.parse(raw) as IdempotencyEntry);
    }
    throw new Error(`idempotency key ${key}: kept changing while it was read`);
  }

  /** {@inheritDoc IdempotencyStore.save} */
  async save(key: string, fingerprint: string, answer: StoredAnswer, ttlMs: number): Promise<void> {
    const entry: IdempotencyEntry = { fingerprint, answer };
    await this.#redis.run('an idempotency answer', (client) => client.set(this.#key(key), JSON.stringify(entry), { PX: ttlMs }));
  }

  /** {@inheritDoc IdempotencyStore.release} Only a reservation (no answer) is deleted. */
  async release(key: string): Promise<void> {
    await this.#redis.run('an idempotency release', (client) => client.eval(RELEASE_RESERVATION_SCRIPT, { keys: [this.#key(key)], arguments: [] }));
  }

  /** {@inheritDoc IdempotencyStore.close} Bounded: a connection that does not close in time is dropped. */
  async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Deletes every idempotency key of this store's namespace (tests, resets). */
  async clear(): Promise<void> {
    await this.#redis.unlinkPrefix(this.#key(''));
  }

  #key(key: string): string {
    return `${this.namespace}::idempotency:${key}`;
  }
}
