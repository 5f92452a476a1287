import type { JobStore } from './job-store.js';
import { MemoryJobStore } from './memory-job-store.js';
import { RedisJobStore } from './redis-job-store.js';

/** Options of {@link createJobStore}. */
export interface CreateJobStoreOptions {
  /** When set, jobs live in this Redis; otherwise in process memory. */
  redisUrl?: string;
  /** Redis key prefix (ignored for memory). Default `virtual-anchor`. */
  namespace?: string;
}

/** A {@link RedisJobStore} when `redisUrl` is given, else a {@link MemoryJobStore}. */
export function createJobStore(options: CreateJobStoreOptions = {}): JobStore {
  if (options.redisUrl) return new RedisJobStore({ url: options.redisUrl, namespace: options.namespace });
  return new MemoryJobStore();
}
