import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryJobStore, RedisJobStore, createJobStore } from '../../src/storage/index.js';
import { makeJob } from '../../src/testing/job-fixtures.js';

describe('createJobStore', () => {
  it('makes a MemoryJobStore without a Redis URL', async () => {
    const store = createJobStore();
    assert.ok(store instanceof MemoryJobStore);
    await store.close();
  });

  it('makes a RedisJobStore with the given URL and namespace', async () => {
    const namespace = `test-${randomUUID()}`;
    const store = createJobStore({ redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', namespace });
    assert.ok(store instanceof RedisJobStore);
    assert.equal(store.namespace, namespace);
    try {
      const job = makeJob();
      await store.create(job);
      assert.deepEqual(await store.get(job.uid), job);
    } finally {
      await store.clear();
      await store.close();
    }
  });
});
