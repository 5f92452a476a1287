/**
 * Webhooks: a job created with `webhookUrl` POSTs a Standard Webhooks signed event when it ends; a failed
 * delivery is retried with the same `webhook-id`; a delivery queued in Redis survives an instance restart.
 * Runs once per host framework against a real local receiver.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook, WebhookVerificationError, signWebhook } from '../../src/index.js';
import { WEBHOOK_RETRY_DELAYS_MS } from '../../src/core/webhooks/retry-schedule.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { SHARED_REDIS_URL, redisKeysOf } from '../helpers/redis-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const h = useHarness();
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const FAST = { secret: SECRET, retryDelaysMs: [300, 300], pollMs: 100 };

describe('webhook signatures', () => {
  it('verifies what signWebhook signs and refuses a changed body, another secret and an old timestamp', () => {
    const body = JSON.stringify({ type: 'avatarVideo.completed', data: { uid: 'x' } });
    const headers = signWebhook(SECRET, 'msg_1', body);
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(verifyWebhook(SECRET, headers, body), JSON.parse(body));
    const reason = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        assert.ok(error instanceof WebhookVerificationError);
        return error.reason;
      }
      return 'verified';
    };
    assert.equal(reason(() => verifyWebhook(SECRET, headers, `${body} `)), 'bad_signature');
    assert.equal(reason(() => verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, headers, body)), 'bad_signature');
    const old = signWebhook(SECRET, 'msg_1', body, Date.now() / 1000 - 301);
    assert.equal(reason(() => verifyWebhook(SECRET, old, body)), 'timestamp_too_old');
    assert.equal(reason(() => verifyWebhook(SECRET, { 'webhook-id': 'msg_1' }, body)), 'missing_headers');
  });

  it('retries first within 10 s and keeps trying for at least 24 h by default', () => {
    assert.ok(WEBHOOK_RETRY_DELAYS_MS[0]! <= 10_000);
    assert.ok(WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) >= 24 * 3_600_000);
  });
});

for (const adapter of ADAPTERS) {
  describe(`webhooks over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await startWebhookReceiver();
      app = await makeApp(adapter, { webhooks: FAST, metrics: true });
    });
    after(async () => {
      await app?.close();
      await receiver?.close();
    });

    it('retries a failed delivery with the same webhook-id; both verify and carry the job as GET answers it', async () => {
      receiver.received.length = 0;
      receiver.statuses = [500];
      const avatarId = await firstAvatarId(app, KEYS.a);
      const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId, webhookUrl: receiver.url });
      assert.equal(res.status, 201, res.text);
      const uid = (res.body as { uid: string }[])[0]!.uid;
      const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
      assert.equal(job.status, 'completed');
      await waitFor('two deliveries', async () => (receiver.received.length >= 2 ? true : undefined), 15_000);
      const [first, second] = receiver.received;
      assert.equal(first!.answered, 500);
      assert.equal(second!.answered, 204);
      assert.equal(first!.headers['webhook-id'], `msg_${uid}`);
      assert.equal(second!.headers['webhook-id'], first!.headers['webhook-id']);
      for (const hook of [first!, second!]) {
        const event = verifyWebhook<{ type: string; data: Record<string, unknown> }>(SECRET, hook.headers, hook.body);
        assert.equal(event.type, 'avatarVideo.completed');
        assert.deepEqual(Object.keys(event.data).sort(), Object.keys(job).sort());
        assert.equal(event.data.uid, uid);
        assert.equal(event.data.status, 'completed');
        assert.ok(String(event.data.path).startsWith(`${app.origin}/files/`), String(event.data.path));
      }
      await new Promise((resolve) => setTimeout(resolve, 700));
      assert.equal(receiver.received.length, 2, 'a delivered event is not sent again');
      const metrics = parsePrometheusText((await app.http.get('/metrics')).text);
      assert.equal(sampleValue(metrics, 'virtual_anchor_webhook_deliveries_total', { outcome: 'failed' }), 1);
      assert.equal(sampleValue(metrics, 'virtual_anchor_webhook_deliveries_total', { outcome: 'delivered' }), 1);
    });

    it('announces a failed separation as sourceSeparation.error', async () => {
      receiver.received.length = 0;
      app.separation.behaviour = { failWith: 'engine exploded' };
      try {
        const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.url('speech.wav'), webhookUrl: receiver.url });
        assert.equal(res.status, 201, res.text);
        const uid = (res.body as { uid: string }[])[0]!.uid;
        const hook = await waitFor('a delivery', async () => receiver.received[0], 15_000);
        const event = verifyWebhook<{ type: string; data: { uid: string; status: string; errorReason: { code: string } } }>(SECRET, hook.headers, hook.body);
        assert.equal(event.type, 'sourceSeparation.error');
        assert.equal(event.data.uid, uid);
        assert.equal(event.data.errorReason.code, 'processing_failed');
      } finally {
        app.separation.behaviour = {};
      }
    });

    it('refuses a webhookUrl that is not an http(s) URL', async () => {
      const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.url('speech.wav'), webhookUrl: 'ftp://example.com/x' });
      assertError(res, 400, 'validation_failed', ['body.webhookUrl']);
    });
  });

  describe(`webhook guards over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('refuses webhookUrl without a secret (400 webhooks_disabled) and a private address (400 forbidden_address)', async () => {
      const off = await makeApp(adapter);
      try {
        const res = await off.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.url('speech.wav'), webhookUrl: 'http://127.0.0.1:9/x' });
        assertError(res, 400, 'webhooks_disabled', ['body.webhookUrl']);
      } finally {
        await off.close();
      }
      const guarded = await makeApp(adapter, { webhooks: FAST, allowPrivateUrls: false });
      try {
        const res = await guarded.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: 'http://93.184.215.14/a.wav', webhookUrl: 'http://169.254.169.254/latest' });
        assertError(res, 400, 'forbidden_address', ['body.webhookUrl']);
      } finally {
        await guarded.close();
      }
    });
  });

  describe(`webhook outbox across a restart over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('delivers, from a new instance on the same Redis namespace, a delivery queued before the first closed', async () => {
      const receiver = await startWebhookReceiver();
      const namespace = `test-hooks-${randomUUID()}`;
      const dataDir = await mkdtemp(join(tmpdir(), 'va-hooks-'));
      const redis = { redis: SHARED_REDIS_URL, redisNamespace: namespace, dataDir };
      try {
        // The first instance looks for due deliveries only at start (a 10-minute poll), so it never sends this one.
        const first = await makeApp(adapter, { ...redis, webhooks: { ...FAST, pollMs: 600_000 } });
        const res = await first.http.post('/v1/sourceSeparations').set('key', KEYS.c).send({ audioUri: h.url('speech.wav'), webhookUrl: receiver.url });
        assert.equal(res.status, 201, res.text);
        const uid = (res.body as { uid: string }[])[0]!.uid;
        await waitForJob(first, `/v1/sourceSeparations/${uid}`, KEYS.c);
        assert.ok((await redisKeysOf(namespace)).includes(`${namespace}::webhooks`), 'the delivery is queued in Redis');
        await first.close();
        assert.equal(receiver.received.length, 0);
        const second = await makeApp(adapter, { ...redis, webhooks: FAST });
        try {
          const hook = await waitFor('the delivery', async () => receiver.received[0], 15_000);
          const event = verifyWebhook<{ type: string; data: { uid: string } }>(SECRET, hook.headers, hook.body);
          assert.deepEqual([event.type, event.data.uid], ['sourceSeparation.completed', uid]);
        } finally {
          await second.close();
        }
      } finally {
        await receiver.close();
        await rm(dataDir, { recursive: true, force: true });
        const { RedisJobStore } = await import('../../src/index.js');
        const store = new RedisJobStore({ url: SHARED_REDIS_URL, namespace });
        await store.clear();
        await store.close();
      }
    });
  });
}
