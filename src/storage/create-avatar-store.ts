import type { Logger } from '../domain/logger.js';
import type { AvatarStore } from './avatar-store.js';
import { MemoryAvatarStore } from './memory-avatar-store.js';
import type { RedisTimeouts } from './redis-connection.js';
import { RedisAvatarStore } from './redis-avatar-store.js';

/** A {@link RedisAvatarStore} when `redisUrl` is given (the job store's Redis), else a {@link MemoryAvatarStore}. */
export function createAvatarStore(options: { redisUrl?: string; namespace?: string; redisTimeouts?: Partial<RedisTimeouts>; logger?: Logger }): AvatarStore {
  if (!options.redisUrl) return new MemoryAvatarStore();
  return new RedisAvatarStore({ url: options.redisUrl, namespace: options.namespace, timeouts: options.redisTimeouts, logger: options.logger });
}
