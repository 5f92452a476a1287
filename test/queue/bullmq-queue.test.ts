import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { queueSuite } from '../../src/testing/queue-suite.js';
import { BullMqJobQueue } from '../../src/queue/bullmq-job-queue.js';
import { silentLogger } from '../../src/domain/logger.js';
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
