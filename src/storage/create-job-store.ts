import type { Logger } from '../domain/logger.js';
import { MemoryJobStore } from './memory-job-store.js';
import type { RedisTimeouts } from './redis-connection.js';
import { RedisJobStore } from './redis-job-store.js';

/** Options of {@link createJobStore}. */
export interface CreateJobStoreOptions {
  /** When set, jobs live in this Redis; otherwise in process memory. */
  redisUrl?: string;
  /** Redis key prefix (ignored for memory). Default `virtual-anchor`. */
  namespace?: string;
  /** Redis connect and command timeouts (ignored for memory). Default 2 000 ms each. */
  redisTimeouts?: Partial<RedisTimeouts>;
  /** A record is deleted this long after its job reached a final state. Default 7 days. */
  recordRetentionMs?: number;
  /** Where a Redis store reports that Redis became unreachable and reachable again. */
  logger?: Logger;
}

/** A {@link RedisJobStore} when `redisUrl` is given, else a {@link MemoryJobStore}; either has its webhook outbox as `outbox`. */
export function createJobStore(options: CreateJobStoreOptions = {}): MemoryJobStore | RedisJobStore {
  const { recordRetentionMs } = options;
  if (options.redisUrl) {
    return new RedisJobStore({
      url: options.redisUrl,
      namespace: options.namespace,
      timeouts: options.redisTimeouts,
      recordRetentionMs,
      logger: options.logger,
    });
  }
  return new MemoryJobStore({ recordRetentionMs });
}
