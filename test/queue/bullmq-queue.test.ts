import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { queueSuite } from '../../src/testing/queue-suite.js';
import { BullMqJobQueue } from '../../src/queue/bullmq-job-queue.js';
import { KeySemaphore } from '../../src/queue/key-semaphore.js';
import { silentLogger } from '../../src/domain/logger.js';
import type { Delivery } from '../../src/queue/job-queue.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';

const REDIS_URL = SHARED_REDIS_URL;
const namespaces: string[] = [];

queueSuite('BullMQ on Redis', {
  create: (limits) => {
    // A namespace per queue, so tests (and test runs) never see each other's jobs.
    const namespace = `va-test-queue-${randomBytes(4).toString('hex')}`;
    namespaces.push(namespace);
    return new BullMqJobQueue({ url: REDIS_URL, namespace, ...limits, maxAttempts: 3, lockMs: 2_000, leaseMs: 8_000, keyRetryMs: 50, logger: silentLogger });
  },
  describe,
  it,
});

after(async () => {
  for (const namespace of namespaces) await deleteRedisNamespace(namespace, REDIS_URL);
});

describe('BullMQ queue across processes', { timeout: 30_000 }, () => {
  const make = (namespace: string) =>
    new BullMqJobQueue({ url: REDIS_URL, namespace, jobsPerKey: 1, engines: 2, maxAttempts: 3, lockMs: 2_000, leaseMs: 8_000, keyRetryMs: 50, logger: silentLogger });
  const fresh = () => {
    const namespace = `va-test-queue-${randomBytes(4).toString('hex')}`;
    namespaces.push(namespace);
    return namespace;
  };

  it('holds jobsPerKey and the order of one key across two consumers', async () => {
    const namespace = fresh();
    const consumers = [make(namespace), make(namespace)];
    const starts: string[] = [];
    let running = 0;
    let peak = 0;
    const handlers = {
      run: async (uid: string) => {
        starts.push(uid);
        peak = Math.max(peak, ++running);
        await new Promise((done) => setTimeout(done, 150));
        running--;
      },
    };
    try {
      for (const consumer of consumers) await consumer.start(handlers);
      const uids = Array.from({ length: 6 }, (_, i) => `two-${i}`);
      for (const uid of uids) await consumers[0]!.enqueue({ uid, owner: 'o', kind: 'separation' });
      const stop = Date.now() + 20_000;
      while (starts.length < uids.length && Date.now() < stop) await new Promise((done) => setTimeout(done, 50));
      assert.deepEqual(starts, uids);
      assert.equal(peak, 1);
    } finally {
      await Promise.all(consumers.map((consumer) => consumer.close()));
    }
  });
});

describe('BullMQ queue deliveries', { timeout: 30_000 }, () => {
  it('says a delivery is retried only while BullMQ has an attempt left, counting a failure before any run', async () => {
    const namespace = `va-test-queue-${randomBytes(4).toString('hex')}`;
    namespaces.push(namespace);
    const queue = new BullMqJobQueue({ url: REDIS_URL, namespace, jobsPerKey: 1, engines: 1, maxAttempts: 2, lockMs: 2_000, leaseMs: 8_000, keyRetryMs: 50, logger: silentLogger });
    const deliveries: Delivery[] = [];
    try {
      await queue.start({
        run: async (_uid, delivery) => {
          deliveries.push(delivery);
          // The first delivery fails inside the service (no run of the job began): BullMQ spends an attempt on it.
          if (deliveries.length === 1) throw new Error('the runner failed');
          return 'ended';
        },
      });
      await queue.enqueue({ uid: 'spent-attempt', owner: 'o', kind: 'separation' });
      const stop = Date.now() + 20_000;
      while (deliveries.length < 2 && Date.now() < stop) await new Promise((done) => setTimeout(done, 50));
      // The second delivery is BullMQ's last: a hand-back there would be delivered to no one.
      assert.deepEqual(deliveries.map((d) => d.retries), [true, false]);
    } finally {
      await queue.close();
    }
  });
});

describe('KeySemaphore drop', () => {
  const semaphore = () => {
    const namespace = `va-test-queue-${randomBytes(4).toString('hex')}`;
    namespaces.push(namespace);
    return new KeySemaphore({ url: REDIS_URL, prefix: namespace, limit: 1, leaseMs: 5_000, waiterTtlMs: 5_000, logger: silentLogger });
  };

  it('ends a dropped waiter at its next try, once, and lets the next waiter have the slot', async () => {
    const sem = semaphore();
    try {
      const first = await sem.register('k', 'a');
      const second = await sem.register('k', 'b');
      const third = await sem.register('k', 'c');
      assert.equal(await sem.acquire('k', 'a', first), 'held');
      assert.equal(await sem.acquire('k', 'b', second), 'wait');
      assert.equal(await sem.drop('k', 'b'), true);
      await sem.release('k', 'a');
      assert.equal(await sem.acquire('k', 'b', second), 'dropped');
      assert.equal(await sem.acquire('k', 'c', third), 'held', 'the dropped waiter gave up its place');
      assert.deepEqual(await sem.holders('k'), ['c']);
    } finally {
      await sem.close();
    }
  });

  it('leaves a running holder and its slot alone', async () => {
    const sem = semaphore();
    try {
      const order = await sem.register('k', 'a');
      assert.equal(await sem.acquire('k', 'a', order), 'held');
      assert.equal(await sem.drop('k', 'a'), false);
      assert.deepEqual(await sem.holders('k'), ['a']);
      assert.equal(await sem.acquire('k', 'a', order), 'held', 'a new attempt of the running job keeps its slot');
    } finally {
      await sem.close();
    }
  });
});
