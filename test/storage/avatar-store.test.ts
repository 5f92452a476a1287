import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryAvatarStore } from '../../src/storage/memory-avatar-store.js';
import { RedisAvatarStore } from '../../src/storage/redis-avatar-store.js';
import { avatarStoreSuite } from '../../src/testing/avatar-store-suite.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

avatarStoreSuite('MemoryAvatarStore', { describe, it, create: async () => new MemoryAvatarStore() });

avatarStoreSuite('RedisAvatarStore', {
  describe,
  it,
  create: async () => new RedisAvatarStore({ url: REDIS_URL, namespace: `test-${randomUUID()}` }),
  destroy: async (store) => {
    await (store as RedisAvatarStore).clear();
    await store.close();
  },
});
