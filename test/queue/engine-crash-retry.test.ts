/**
 * Issue #20: a crashed engine child fails only its job, "with BullMQ, retried like a dead worker's job". On an
 * instance with the BullMQ queue (shared Redis), the separation child is SIGKILLed (as the kernel's OOM killer does)
 * in the middle of a job, through HTTP: the runner hands the job back to the queue instead of ending it, the queue
 * delivers it again and the next run takes it over as attempt 2, in a fresh child, and completes it. With the
 * in-process queue the same crash ends the job in `error` (test/fault/native-crash.test.ts); an error the engine
 * reports itself is never retried.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '../../src/index.js';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffmpeg } from '../helpers/media.js';
import { engineChildren } from '../helpers/processes.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';

const h = useHarness();
const namespace = `va-test-crash-retry-${randomBytes(4).toString('hex')}`;

/** A logger that keeps the warnings (message and fields). */
function warnings(): { logger: Logger; seen: { message: string; fields?: Record<string, unknown> }[] } {
  const seen: { message: string; fields?: Record<string, unknown> }[] = [];
  const ignore = () => undefined;
  return { seen, logger: { debug: ignore, info: ignore, error: ignore, warn: (message, fields) => void seen.push({ message, fields }) } };
}

describe('an engine child crash on BullMQ', { timeout: 180_000 }, () => {
  let app: TestApp;
  const log = warnings();
  before(async () => {
    await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=220:duration=60:sample_rate=44100', join(h.fixtures.dir, 'crash-retry.wav')]);
    app = await makeApp('express', { redis: SHARED_REDIS_URL, redisNamespace: namespace, logger: log.logger, backends: { separation: undefined } });
  });
  after(async () => {
    await app?.close();
    await deleteRedisNamespace(namespace);
  });

  it('is retried like a dead worker\'s job: attempt 2 runs in a fresh child and completes', async () => {
    const uid = await createSeparation(app, KEYS.a, h.files.url('crash-retry.wav'));
    await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.a, ['ongoing'], 30_000);
    const first = await waitFor('the separation child to run', async () => (await engineChildren('source separation'))[0], 30_000, 50);
    process.kill(first.pid, 'SIGKILL');
    const done = await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.a, ['error', 'completed'], 120_000);
    assert.equal(done.status, 'completed', JSON.stringify(done.errorReason));
    const handedBack = log.seen.find((w) => w.message === 'an engine process crashed; the job is handed back to the queue');
    assert.ok(handedBack, `the crash was handed back: ${JSON.stringify(log.seen.map((w) => w.message))}`);
    assert.match(String(handedBack.fields?.error), /source separation process was killed by SIGKILL/);
    const takenOver = log.seen.find((w) => w.message === 'job taken over after its worker stopped');
    assert.equal(takenOver?.fields?.attempt, 2, 'the next run is attempt 2');
  });
});
