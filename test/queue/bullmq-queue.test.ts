import { after, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { queueSuite } from '../../src/testing/queue-suite.js';
import { BullMqJobQueue } from '../../src/queue/bullmq-job-queue.js';
import { silentLogger } from '../../src/core/logger.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';

const REDIS_URL = SHARED_REDIS_URL;
const namespaces: string[] = [];

queueSuite({
  name: 'BullMQ on Redis',
  make: (limits) => {
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
