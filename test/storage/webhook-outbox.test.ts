/** The webhook outbox contract on the built-in pairs: MemoryJobStore with its outbox, RedisJobStore with its outbox (a real Redis). */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { RedisJobStore } from '../../src/storage/redis-job-store.js';
import { at, makeJob } from '../../src/testing/job-fixtures.js';
import { webhookOutboxSuite } from '../../src/testing/webhook-outbox-suite.js';
import { redisKeysOf, SHARED_REDIS_URL } from '../helpers/redis-server.js';

webhookOutboxSuite('MemoryJobStore.outbox', {
  describe,
  it,
  create: async ({ now }) => {
    const store = new MemoryJobStore({ now });
    return { store, outbox: store.outbox };
  },
});

webhookOutboxSuite('RedisJobStore.outbox', {
  describe,
  it,
  create: async ({ now }) => {
    const store = new RedisJobStore({ url: SHARED_REDIS_URL, namespace: `test-outbox-${randomUUID()}`, now });
    return { store, outbox: store.outbox };
  },
  destroy: async ({ store }) => {
    await (store as RedisJobStore).clear();
    await store.close();
  },
});

describe('RedisJobStore.outbox', () => {
  it('lives in the store namespace (the keys its compare-and-set script writes), shares its connection and ends with it', async () => {
    const namespace = `test-outbox-${randomUUID()}`;
    const store = new RedisJobStore({ url: SHARED_REDIS_URL, namespace });
    try {
      const job = { ...makeJob({ createdAt: at(1) }), webhook: { url: 'https://example.com/hook', baseUrl: 'https://api.example.com' } };
      await store.create(job);
      assert.ok(await store.transition(job.uid, ['pending'], 'ongoing'));
      assert.ok(await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(2) }));
      assert.deepEqual(await store.outbox.claim(Date.now(), 1_000, 10), [{ uid: job.uid, attempt: 1 }]);
      const keys = await redisKeysOf(namespace, SHARED_REDIS_URL);
      assert.ok(keys.includes(`${namespace}::webhooks`) && keys.includes(`${namespace}::webhook-attempts`), keys.join(' '));
      await store.clear();
    } finally {
      await store.close();
    }
    await assert.rejects(store.outbox.claim(Date.now(), 1_000, 10), { name: 'StoreUnavailableError' }, 'closing the store ends its outbox');
  });
});
