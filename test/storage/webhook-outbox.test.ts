/**
 * The job stores' webhook outbox: the write that first makes a job with a webhook final queues its delivery,
 * claims lease it (no second claim until the lease ends), settling reschedules or removes it. Memory and Redis.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MemoryJobStore, RedisJobStore, type JobStore } from '../../src/index.js';
import { SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { makeJob } from './job-fixtures.js';

for (const [name, make] of [
  ['MemoryJobStore', () => new MemoryJobStore()],
  ['RedisJobStore', () => new RedisJobStore({ url: SHARED_REDIS_URL, namespace: `test-outbox-${randomUUID()}` })],
] as const) {
  describe(`${name}: webhook outbox`, () => {
    let store: JobStore;
    before(() => {
      store = make();
    });
    after(async () => {
      if (store instanceof RedisJobStore) await store.clear();
      await store.close();
    });

    it('queues a delivery with the final state only for jobs with a webhook, and leases each claim', async () => {
      const hooked = { ...makeJob(), webhook: { url: 'https://example.com/hook', baseUrl: 'https://api.example.com' } };
      const plain = makeJob();
      for (const job of [hooked, plain]) {
        await store.create(job);
        assert.ok(await store.transition(job.uid, ['pending'], 'ongoing'));
      }
      const now = Date.now();
      assert.deepEqual(await store.claimWebhooks!(now + 1_000, 30_000, 10), [], 'nothing is queued before a final state');
      assert.ok(await store.transition(hooked.uid, ['ongoing'], 'completed', { completedAt: new Date().toISOString() }));
      assert.ok(await store.transition(plain.uid, ['ongoing'], 'error', { failure: { code: 'x', message: 'y' } }));

      const claimed = await Promise.all([store.claimWebhooks!(now + 1_000, 30_000, 10), store.claimWebhooks!(now + 1_000, 30_000, 10)]);
      assert.deepEqual(claimed.flat(), [{ uid: hooked.uid, attempt: 1 }], 'one of two racing claims gets it');
      assert.deepEqual(await store.claimWebhooks!(now + 20_000, 30_000, 10), [], 'leased');
      assert.deepEqual(await store.claimWebhooks!(now + 31_001, 30_000, 10), [{ uid: hooked.uid, attempt: 2 }], 'claimable again when the lease ends');
      await store.settleWebhook!(hooked.uid, now + 100_000);
      assert.deepEqual(await store.claimWebhooks!(now + 99_000, 30_000, 10), []);
      assert.deepEqual(await store.claimWebhooks!(now + 100_000, 30_000, 10), [{ uid: hooked.uid, attempt: 3 }]);
      await store.settleWebhook!(hooked.uid, undefined);
      assert.deepEqual(await store.claimWebhooks!(now + 10_000_000, 30_000, 10), []);
    });
  });
}
