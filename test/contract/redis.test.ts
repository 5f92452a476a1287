/**
 * The job-list part of the contract once more, with job records in Redis (`redis` option) under a
 * throw-away namespace whose keys are removed afterwards. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RedisJobStore, TOKENS } from '../../src/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { useHarness } from '../helpers/harness.js';
import { SHARED_REDIS_URL as REDIS_URL, redisKeysOf as keysOf } from '../helpers/redis-server.js';
import { jobListContract } from './job-lists.js';

const h = useHarness();

for (const adapter of ADAPTERS) {
  describe(`job lists in Redis over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    const namespace = `test-${randomUUID()}`;
    let app: TestApp;
    before(async () => {
      app = await makeApp(adapter, { redis: REDIS_URL, redisNamespace: namespace });
    });
    after(async () => {
      const store = app.instance.container.resolve<RedisJobStore>(TOKENS.JobStore);
      await store.clear();
      await app.close();
      assert.deepEqual(await keysOf(namespace), []);
    });

    it('keeps the job records in Redis under the namespace', async () => {
      assert.ok(app.instance.container.resolve(TOKENS.JobStore) instanceof RedisJobStore);
    });

    jobListContract(h, () => app, KEYS.d);

    it('wrote its records to Redis', async () => {
      const keys = await keysOf(namespace);
      assert.ok(keys.some((k) => k.startsWith(`${namespace}::job:`)), JSON.stringify(keys));
    });
  });
}
