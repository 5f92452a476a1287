import type { Logger } from '../domain/logger.js';
import type { IdempotencyStore } from './idempotency-store.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import type { RedisTimeouts } from './redis-connection.js';
import { RedisIdempotencyStore } from './redis-idempotency-store.js';

/** A {@link RedisIdempotencyStore} when `redisUrl` is given (the job store's Redis), else a {@link MemoryIdempotencyStore}. */
export function createIdempotencyStore(options: { redisUrl?: string; namespace?: string; redisTimeouts?: Partial<RedisTimeouts>; logger?: Logger }): IdempotencyStore {
  if (!options.redisUrl) return new MemoryIdempotencyStore();
  return new RedisIdempotencyStore({ url: options.redisUrl, namespace: options.namespace, timeouts: options.redisTimeouts, logger: options.logger });
}
