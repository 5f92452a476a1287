/**
 * Faults of the S3 blob store (s3rver of the test's own, stopped mid-way): an upload while the store is down
 * answers 503 `unavailable` quickly, readiness names the blob store, a job whose store goes down while its engine
 * runs ends in `error` with the reason (nothing hangs, the process stays up), and a store that cannot sign links
 * fails with StoreUnavailableError (which the HTTP layer answers with 503).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { S3BlobStore } from '../../src/index.js';
import type { EngineContext, LipSyncInput } from '../../src/domain/engines.js';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, waitForJob } from '../helpers/checks.js';
import { createVideo, firstAvatarId } from '../helpers/client.js';
import { FakeLipSyncEngine } from '../helpers/engines.js';
import { useHarness } from '../helpers/harness.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';

const h = useHarness();

/** Renders, but stops the S3 server first: the result cannot be stored. */
class StoreKillingLipSync extends FakeLipSyncEngine {
  constructor(private readonly s3: () => S3TestServer) {
    super();
  }
  override async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    await this.s3().stop();
    await super.render(input, context);
  }
}

describe('S3 blob store outages', { timeout: 120_000 }, () => {
  let s3: S3TestServer;
  let app: TestApp;
  before(async () => {
    s3 = await startS3Server();
    app = await makeApp('express', {
      s3: s3.storeOptions(`outage-${randomUUID()}/`),
      backends: { lipSync: new StoreKillingLipSync(() => s3) },
    });
  });
  after(async () => {
    await app?.close();
    await s3?.close();
  });

  it('ends a job in error with the reason when the store goes down while its engine runs', async () => {
    const avatarId = await firstAvatarId(app, KEYS.a);
    const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId });
    const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a, ['completed', 'error'], 60_000);
    assert.equal(job.status, 'error');
    const reason = job.errorReason as { code: string; message: string };
    assert.equal(reason.code, 'processing_failed');
    assert.match(reason.message, /S3 blob store did not answer/);
  });

  it('answers an upload with 503 unavailable while the store is down, and readiness names the blob store', async () => {
    const started = Date.now();
    const upload = await app.http.post('/v1/uploads').set('key', KEYS.a).attach('file', h.path('speech.mp3'));
    assertError(upload, 503, 'unavailable');
    assert.ok(Date.now() - started < 15_000, `answered in ${Date.now() - started} ms`);
    const ready = await app.http.get('/readyz');
    assertError(ready, 503, 'unavailable');
    assert.match(ready.body.error.message, /blob store/);
    const live = await app.http.get('/healthz');
    assert.equal(live.status, 200);
  });

  it('fails presigning with StoreUnavailableError (answered 503) when links cannot be signed', async () => {
    const store = new S3BlobStore({
      ...s3.storeOptions(),
      credentials: undefined,
      client: undefined,
    });
    // A credentials provider that fails, as an unreachable instance-metadata service does.
    store.client.config.credentials = () => Promise.reject(new Error('no credentials'));
    await assert.rejects(store.presignGet('abcdefgh12', { expiresInMs: 60_000 }), { name: 'StoreUnavailableError', message: /could not sign an S3 link/ });
    store.close();
  });
});
