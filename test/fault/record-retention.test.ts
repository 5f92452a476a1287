/**
 * Issue #10, item 8 (job records): a job record is deleted `retention.recordsMs` after the job
 * reached a final state, in memory and in Redis (record key and every index entry), so the job
 * answers 404 and lists no longer count it. Runs on Express and Koa, with each store.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { RedisJobStore, TOKENS } from '../../src/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type AppOptions } from '../helpers/apps.js';
import { assertError, waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { SHARED_REDIS_URL, redisKeysOf } from '../helpers/redis-server.js';

const RECORDS_MS = 1_500;
const h = useHarness();

for (const adapter of ADAPTERS) {
  for (const storeName of ['memory', 'redis'] as const) {
    describe(`job record retention over ${adapter} with the ${storeName} store`, { timeout: SUITE_TIMEOUT_MS }, () => {
      it('deletes a final job record recordsMs after it ended: 404, and lists no longer count it', async () => {
        const namespace = `test-${randomUUID()}`;
        // No catalogue: its avatars' preparation records are kept (they are the avatars' state), and Redis is to end up empty.
        const options: AppOptions = { retention: { recordsMs: RECORDS_MS, sweepIntervalMs: 200 }, avatars: { builtIn: false } };
        if (storeName === 'redis') Object.assign(options, { redis: SHARED_REDIS_URL, redisNamespace: namespace });
        const app = await makeApp(adapter, options);
        try {
          const key = KEYS.e;
          const list = async () => (await app.http.get('/v1/sourceSeparations').set('key', key)).body as { total: number };
          const ended = await createSeparation(app, key, h.url('speech.wav'));
          const endedAt = Date.parse(String((await waitForJob(app, `/v1/sourceSeparations/${ended}`, key, ['completed'])).updatedAt));
          const pending = await createSeparation(app, key, h.url('speech.wav'));
          await waitForJob(app, `/v1/sourceSeparations/${pending}`, key, ['completed']);
          assert.equal((await list()).total, 2);

          // Gone once its retention has passed (the sweeper runs every 200 ms), and not before.
          const gone = await waitFor('the first record to expire', async () => {
            const askedAt = Date.now();
            const res = await app.http.get(`/v1/sourceSeparations/${ended}`).set('key', key);
            if (res.status !== 404) return undefined;
            assert.ok(askedAt >= endedAt + RECORDS_MS, `deleted at most ${askedAt - endedAt} ms after it ended`);
            return res;
          });
          assertError(gone, 404, 'not_found');
          const total = (await list()).total;
          assert.ok(total <= 1, `total ${total} after the first record expired`);

          await waitFor('every record to expire', async () => ((await list()).total === 0 ? true : undefined));
          assertError(await app.http.get(`/v1/sourceSeparations/${pending}`).set('key', key), 404, 'not_found');
          if (storeName === 'redis') {
            assert.ok(app.instance.container.resolve(TOKENS.JobStore) instanceof RedisJobStore);
            await waitFor('the sweeper to trim the indexes', async () => ((await redisKeysOf(namespace)).length === 0 ? true : undefined));
          }
        } finally {
          if (storeName === 'redis') await app.instance.container.resolve<RedisJobStore>(TOKENS.JobStore).clear();
          await app.close();
        }
      });
    });
  }
}
