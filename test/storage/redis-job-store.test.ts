import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createClient } from '@redis/client';
import type { Job } from '../../src/domain/job.js';
import { RedisJobStore } from '../../src/storage/redis-job-store.js';
import { at, makeJob, uids } from '../../src/testing/job-fixtures.js';
import { jobStoreSuite } from '../../src/testing/job-store-suite.js';
import { redisKeysOf } from '../helpers/redis-server.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function testNamespace(): string {
  return `test-${randomUUID()}`;
}

/** Deletes the namespace's keys, then disconnects. */
async function dispose(store: RedisJobStore): Promise<void> {
  await store.clear();
  await store.close();
}

const keysOf = (namespace: string) => redisKeysOf(namespace, REDIS_URL);

jobStoreSuite('RedisJobStore', {
  describe,
  it,
  create: async (settings) => new RedisJobStore({ url: REDIS_URL, namespace: testNamespace(), ...settings }),
  destroy: (store) => dispose(store as RedisJobStore),
  expect: ['recordExpiry', 'ping'],
});

describe('RedisJobStore on a shared Redis', () => {
  it('keeps every key under its namespace, and clear() removes them all', async () => {
    const namespace = testNamespace();
    const store = new RedisJobStore({ url: REDIS_URL, namespace });
    try {
      const job = makeJob({ createdAt: at(1) });
      await store.create(job);
      await store.transition(job.uid, ['pending'], 'ongoing');
      const keys = await keysOf(namespace);
      assert.deepEqual(keys.sort(), [
        `${namespace}::job:${job.uid}`,
        `${namespace}::list:avatarVideo:*:owner-a`,
        `${namespace}::list:avatarVideo:ongoing:owner-a`,
        `${namespace}::status:ongoing:*`,
        `${namespace}::status:ongoing:avatarVideo`,
      ]);
      const other = new RedisJobStore({ url: REDIS_URL, namespace: testNamespace() });
      assert.equal(await other.get(job.uid), undefined);
      await other.close();
      await store.clear();
      assert.deepEqual(await keysOf(namespace), []);
    } finally {
      await dispose(store);
    }
  });

  it('gives a final record a key TTL as a safety net and leaves no key of it once expired', async () => {
    const namespace = testNamespace();
    let clock = Date.now();
    const store = new RedisJobStore({ url: REDIS_URL, namespace, now: () => new Date(clock), recordRetentionMs: 60_000 });
    const client = await createClient({ url: REDIS_URL }).connect();
    try {
      const [done, kept] = [1, 2].map((s) => makeJob({ owner: 'alice', createdAt: at(s) }));
      await store.create(done);
      await store.create(kept);
      assert.equal(await client.pTTL(`${namespace}::job:${done.uid}`), -1);
      await store.transition(done.uid, ['pending'], 'error');
      const ttl = await client.pTTL(`${namespace}::job:${done.uid}`);
      assert.ok(ttl > 60_000 && ttl <= 60_000 + 3_600_000, `TTL ${ttl}`);
      assert.equal(await client.zCard(`${namespace}::expiry`), 1);
      clock += 60_000;
      assert.equal(await store.deleteExpired(), 1);
      const left = (await keysOf(namespace)).sort();
      assert.deepEqual(left, [
        `${namespace}::job:${kept.uid}`,
        `${namespace}::list:avatarVideo:*:alice`,
        `${namespace}::list:avatarVideo:pending:alice`,
        `${namespace}::status:pending:*`,
        `${namespace}::status:pending:avatarVideo`,
      ]);
      assert.deepEqual(await client.zRange(`${namespace}::list:avatarVideo:*:alice`, 0, -1), [kept.uid]);
    } finally {
      await client.close();
      await dispose(store);
    }
  });

  it('lists exactly when two processes create and transition concurrently', async () => {
    const namespace = testNamespace();
    const one = new RedisJobStore({ url: REDIS_URL, namespace });
    const two = new RedisJobStore({ url: REDIS_URL, namespace });
    try {
      // 2 × 50 creates at once; createdAt collides in pairs so the uid tie-break is exercised too.
      const jobs = Array.from({ length: 100 }, (_, i) => makeJob({ owner: 'alice', createdAt: at(Math.floor(i / 2)) }));
      await Promise.all(jobs.map((job, i) => (i % 2 === 0 ? one : two).create(job)));

      const expected = [...jobs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || (a.uid < b.uid ? 1 : -1));
      const perPage = 7;
      const pages = await Promise.all(
        Array.from({ length: 15 }, (_, p) =>
          (p % 2 === 0 ? one : two).list({ owner: 'alice', kind: 'avatarVideo', page: p + 1, perPage }),
        ),
      );
      assert.ok(pages.every((page) => page.total === 100));
      const listed = pages.flatMap((page) => uids(page.items));
      assert.equal(new Set(listed).size, 100);
      assert.deepEqual(listed, uids(expected));

      // Both processes race to start every job: each job is started exactly once.
      const starts = await Promise.all(
        jobs.flatMap((job) => [one, two].map((store) => store.transition(job.uid, ['pending'], 'ongoing'))),
      );
      assert.equal(starts.filter((job) => job !== undefined).length, 100);

      // Then each process finishes a disjoint third and fails another third, concurrently.
      const completed = jobs.filter((_, i) => i % 3 === 0);
      const failed = jobs.filter((_, i) => i % 3 === 1);
      await Promise.all([
        ...completed.map((job, i) => (i % 2 === 0 ? one : two).transition(job.uid, ['ongoing'], 'completed')),
        ...failed.map((job, i) => (i % 2 === 0 ? two : one).transition(job.uid, ['ongoing'], 'error')),
      ]);
      const listStatus = async (store: RedisJobStore, status: Job['status']) =>
        store.list({ owner: 'alice', kind: 'avatarVideo', status, page: 1, perPage: 100 });
      const sorted = (list: readonly Job[]) => uids(list).sort();
      const done = await listStatus(two, 'completed');
      assert.equal(done.total, completed.length);
      assert.deepEqual(sorted(done.items), sorted(completed));
      const errored = await listStatus(one, 'error');
      assert.deepEqual(sorted(errored.items), sorted(failed));
      const running = await listStatus(two, 'ongoing');
      assert.equal(running.total, 100 - completed.length - failed.length);
      assert.equal((await listStatus(one, 'pending')).total, 0);
      assert.deepEqual((await one.uidsByStatus('completed')).sort(), sorted(completed));
    } finally {
      await one.close();
      await dispose(two);
    }
  });
});
