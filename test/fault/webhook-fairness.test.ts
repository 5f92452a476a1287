/**
 * One key's webhook receiver that never answers cannot delay another key's webhooks: 160 deliveries of one key
 * are due to a receiver that accepts each request and never answers (each attempt runs to its 10 s deadline);
 * another key's job, created through the API, completes and its webhook must reach its own receiver within a
 * second of when the job became final (the moment its delivery was queued), as it does with an idle dispatcher.
 * The real instance and dispatcher, with the service's limits and the default attempt deadline.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { MemoryIdempotencyStore, MemoryJobStore, verifyWebhook } from '../../src/index.js';
import { DELIVERY_LIMITS } from '../../src/core/webhooks/dispatcher.js';
import { makeJob } from '../../src/testing/job-fixtures.js';
import { KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';
import { startSilentReceiver, startWebhookReceiver, type SilentReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { recordProcessFaults } from './http-faults.js';

const h = useHarness();
const process$ = recordProcessFaults();
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const FLOOD = 160;

describe('webhook fairness: a receiver that never answers', { timeout: SUITE_TIMEOUT_MS }, () => {
  let app: TestApp;
  let store: MemoryJobStore;
  let silent: SilentReceiver;
  let receiver: WebhookReceiver;
  before(async () => {
    [silent, receiver] = await Promise.all([startSilentReceiver(), startWebhookReceiver()]);
    store = new MemoryJobStore();
    // A short poll, so that the idle delay is small next to the one second allowed; the attempt deadline is the default.
    app = await makeApp('express', { webhooks: { secret: SECRET, pollMs: 100 }, backends: { jobStore: store, webhookOutbox: store.outbox, idempotencyStore: new MemoryIdempotencyStore() } });
  });
  after(async () => {
    await app?.close();
    await Promise.all([silent?.close(), receiver?.close()]);
  });
  afterEach(() => process$.assertNone());

  /** Creates a separation of KEYS.b with a webhook; resolves with the delay (ms) from its queueing to its receipt. */
  const webhookDelay = async (): Promise<number> => {
    const before = receiver.received.length;
    const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.url('speech.wav'), webhookUrl: receiver.url });
    assert.equal(res.status, 201, res.text);
    const uid = (res.body as { uid: string }[])[0]!.uid;
    const hook = await waitFor('the webhook of KEYS.b', async () => receiver.received[before], 20_000);
    const event = verifyWebhook<{ type: string; data: { uid: string; updatedAt: string } }>(SECRET, hook.headers, hook.body);
    assert.deepEqual([event.type, event.data.uid], ['sourceSeparation.completed', uid]);
    // The store queues the delivery in the write that makes the job final, stamped `updatedAt`.
    return hook.atMs - Date.parse(event.data.updatedAt);
  };

  it(`another key's webhook arrives within 1 s while ${FLOOD} deliveries hang on one receiver`, async (t) => {
    const idleMs = await webhookDelay();

    for (let i = 0; i < FLOOD; i++) {
      const job = { ...makeJob({ kind: 'separation', owner: 'flooding-key' }), webhook: { url: silent.url, baseUrl: app.origin } };
      await store.create(job);
      await store.transition(job.uid, ['pending'], 'error', { failure: { code: 'processing_failed', message: 'x' } });
    }
    await waitFor('the silent receiver to hold its slots', async () => (silent.open >= DELIVERY_LIMITS.perDestination ? true : undefined), 5_000);

    const busyMs = await webhookDelay();
    t.diagnostic(`webhook delay: ${idleMs} ms with an idle dispatcher, ${busyMs} ms beside ${FLOOD} hanging deliveries`);
    assert.ok(busyMs < 1_000, `the webhook came ${busyMs} ms after its job ended (idle dispatcher: ${idleMs} ms)`);
    assert.ok(busyMs - idleMs < 1_000, `${busyMs} ms against ${idleMs} ms with an idle dispatcher`);
    assert.equal(silent.mostOpen, DELIVERY_LIMITS.perDestination, 'attempts to one destination at once');
    assert.ok(silent.received < FLOOD, 'the hanging deliveries are still waiting their turn');
  });
});
