/** The idempotency store contract on the built-in stores: in process memory, and on a real Redis. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryIdempotencyStore } from '../../src/storage/memory-idempotency-store.js';
import { RedisIdempotencyStore } from '../../src/storage/redis-idempotency-store.js';
import { idempotencyStoreSuite } from '../../src/testing/idempotency-store-suite.js';
import { redisKeysOf, SHARED_REDIS_URL } from '../helpers/redis-server.js';

idempotencyStoreSuite('MemoryIdempotencyStore', { describe, it, create: async () => new MemoryIdempotencyStore() });

idempotencyStoreSuite('RedisIdempotencyStore', {
  describe,
  it,
  create: async () => new RedisIdempotencyStore({ url: SHARED_REDIS_URL, namespace: `test-idem-${randomUUID()}` }),
  destroy: async (store) => {
    await (store as RedisIdempotencyStore).clear();
    await store.close();
  },
});

describe('RedisIdempotencyStore', () => {
  it('keeps each key under its namespace, shared by two stores on one namespace', async () => {
    const namespace = `test-idem-${randomUUID()}`;
    const one = new RedisIdempotencyStore({ url: SHARED_REDIS_URL, namespace });
    const two = new RedisIdempotencyStore({ url: SHARED_REDIS_URL, namespace });
    try {
      assert.deepEqual(await one.reserve('k', 'fp-1', 60_000), { state: 'reserved' });
      assert.deepEqual(await two.reserve('k', 'fp-2', 60_000), { state: 'in_flight', fingerprint: 'fp-1' });
      assert.deepEqual(await redisKeysOf(namespace, SHARED_REDIS_URL), [`${namespace}::idempotency:k`]);
      await one.clear();
      assert.deepEqual(await redisKeysOf(namespace, SHARED_REDIS_URL), []);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('refuses an empty namespace', () => {
    assert.throws(() => new RedisIdempotencyStore({ namespace: '' }), /namespace must not be empty/);
  });
});
