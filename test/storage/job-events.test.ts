import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { LocalJobEvents } from '../../src/storage/job-events.js';
import { RedisJobEvents } from '../../src/storage/redis-job-events.js';
import { jobEventsSuite } from '../../src/testing/job-events-suite.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

jobEventsSuite('LocalJobEvents', {
  describe,
  it,
  shared: false,
  createPair: async () => {
    const events = new LocalJobEvents();
    return [events, events];
  },
});

jobEventsSuite('RedisJobEvents', {
  describe,
  it,
  createPair: async () => {
    const namespace = `test-events-${randomUUID()}`;
    return [new RedisJobEvents({ url: REDIS_URL, namespace, logger: silent }), new RedisJobEvents({ url: REDIS_URL, namespace, logger: silent })];
  },
});
