/**
 * The webhook dispatcher on its own: gives a delivery up after its last retry, and reports each outcome; limits
 * attempts per destination, per key and in all without a batch to wait for, so a receiver that never answers
 * delays no other; hands the deliveries still waiting back to the outbox when it closes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryJobStore } from '../../src/index.js';
import { LinkBuilder } from '../../src/core/links.js';
import { silentLogger } from '../../src/domain/logger.js';
import { noMetrics } from '../../src/core/metrics/metrics-recorder.js';
import { DELIVERY_LIMITS, WebhookDispatcher, type WebhookDispatcherSettings } from '../../src/core/webhooks/dispatcher.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { waitFor } from '../helpers/checks.js';
import { startSilentReceiver, startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { makeJob } from '../../src/testing/job-fixtures.js';
import { KindRegistry } from '../../src/core/kinds/registry.js';

/** A dispatcher on `store` with the service's limits, a 20 ms poll and a 10 s attempt deadline, unless `settings` say otherwise. */
function dispatcherOn(store: MemoryJobStore, settings: Partial<WebhookDispatcherSettings> = {}, outcomes: string[] = []): WebhookDispatcher {
  return new WebhookDispatcher(
    store,
    store.outbox,
    (baseUrl) => new LinkBuilder(new UrlSigner(randomBytes(32)), baseUrl, 60_000),
    { ...noMetrics, webhookDelivery: (outcome) => outcomes.push(outcome) },
    silentLogger,
    {
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      pollMs: 20,
      retryDelaysMs: [60_000],
      timeoutMs: 10_000,
      ...DELIVERY_LIMITS,
      allowPrivateAddresses: true,
      kinds: new KindRegistry(),
      ...settings,
    },
  );
}

/** Queues `count` deliveries of `owner`'s jobs to `url` (each job ends in `error`); returns their uids. */
async function queueDeliveries(store: MemoryJobStore, owner: string, url: string, count: number): Promise<string[]> {
  const uids: string[] = [];
  for (let i = 0; i < count; i++) {
    const job = { ...makeJob({ kind: 'separation', owner }), webhook: { url, baseUrl: 'http://api.example' } };
    await store.create(job);
    await store.transition(job.uid, ['pending'], 'error', { failure: { code: 'x', message: 'y' } });
    uids.push(job.uid);
  }
  return uids;
}

describe('WebhookDispatcher', () => {
  it('retries per the schedule, then gives up; every attempt is counted by outcome', async () => {
    const receiver = await startWebhookReceiver([500, 503, 500]);
    const store = new MemoryJobStore();
    const outcomes: string[] = [];
    const dispatcher = dispatcherOn(store, { retryDelaysMs: [50, 50], timeoutMs: 2_000 }, outcomes);
    try {
      await queueDeliveries(store, 'owner-a', receiver.url, 1);
      dispatcher.start();
      await waitFor('three attempts', async () => (outcomes.length >= 3 ? true : undefined), 5_000);
      await sleep(200);
      assert.deepEqual(outcomes, ['failed', 'failed', 'gave_up']);
      assert.equal(receiver.received.length, 3);
      assert.equal(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size, 1);
      assert.deepEqual(await store.outbox.claim(Date.now() + 1e9, 1_000, 10), [], 'given up: no longer queued');
    } finally {
      await dispatcher.close();
      await receiver.close();
      await store.close();
    }
  });

  it('sends another key\'s deliveries one after another at once while a receiver that never answers holds its slots', async () => {
    const [hang1, hang2, receiver] = await Promise.all([startSilentReceiver(), startSilentReceiver(), startWebhookReceiver()]);
    const store = new MemoryJobStore();
    const dispatcher = dispatcherOn(store, { concurrency: 5, perDestination: 2, perKey: 3 });
    try {
      // Queued first, so every claim takes them first.
      await queueDeliveries(store, 'slow-key', hang1.url, 10);
      await queueDeliveries(store, 'slow-key', hang2.url, 10);
      const fast = await queueDeliveries(store, 'fast-key', receiver.url, 20);
      const startedMs = Date.now();
      dispatcher.start();
      await waitFor('the fast key\'s 20 deliveries', async () => (receiver.received.length >= fast.length ? true : undefined), 5_000);
      const tookMs = Date.now() - startedMs;
      assert.ok(tookMs < 2_000, `20 deliveries to a receiver that answers took ${tookMs} ms`);
      assert.deepEqual(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])), new Set(fast.map((uid) => `msg_${uid}`)));
      assert.ok(hang1.mostOpen <= 2 && hang2.mostOpen <= 2, `per destination: ${hang1.mostOpen}, ${hang2.mostOpen}`);
      assert.equal(hang1.open + hang2.open, 3, 'per key');
      assert.equal(hang1.received + hang2.received, 3, 'the other deliveries of the slow key wait for its slots');
    } finally {
      await dispatcher.close();
      await Promise.all([hang1.close(), hang2.close(), receiver.close()]);
      await store.close();
    }
  });

  it('shares the slots of all destinations between keys, and hands the waiting deliveries back when it closes', async () => {
    const [hang1, hang2, hang3] = await Promise.all([startSilentReceiver(), startSilentReceiver(), startSilentReceiver()]);
    const store = new MemoryJobStore();
    const dispatcher = dispatcherOn(store, { concurrency: 4, perDestination: 2, perKey: 3 });
    const queued = [
      ...(await queueDeliveries(store, 'key-a', hang1.url, 10)),
      ...(await queueDeliveries(store, 'key-a', hang2.url, 10)),
      ...(await queueDeliveries(store, 'key-c', hang3.url, 10)),
    ];
    try {
      dispatcher.start();
      await waitFor('4 attempts in flight', async () => (hang1.open + hang2.open + hang3.open >= 4 ? true : undefined), 5_000);
      await sleep(300);
      assert.equal(hang1.open + hang2.open + hang3.open, 4, 'in all');
      assert.equal(hang1.open + hang2.open, 2, 'the key with fewer attempts in flight gets the next slot');
      assert.equal(hang3.open, 2);
      assert.equal(dispatcher.heldCount, queued.length, 'every due delivery is held: 4 in flight, the others waiting');
      assert.deepEqual(await store.outbox.claim(Date.now(), 1_000, 100), [], 'held deliveries are leased');
    } finally {
      await dispatcher.close();
    }
    try {
      // The 26 that waited are due again at once (the 4 aborted attempts stay leased until their lease ends).
      const reclaimed = await store.outbox.claim(Date.now(), 1_000, 100);
      assert.equal(reclaimed.length, queued.length - 4);
      assert.ok(reclaimed.every((delivery) => delivery.attempt === 2), 'a claim counts as an attempt');
      assert.equal(dispatcher.heldCount, 0);
    } finally {
      await Promise.all([hang1.close(), hang2.close(), hang3.close()]);
      await store.close();
    }
  });

  it('renews the lease of a delivery that waits for a slot, so no other process claims it when its first lease ends', async () => {
    const hang = await startSilentReceiver();
    const store = new MemoryJobStore();
    // With a 10 s poll a waiting delivery is renewed at the next poll: it could outwait its lease before the one after.
    const timeoutMs = 10_000;
    const dispatcher = dispatcherOn(store, { perDestination: 2, pollMs: 10_000, timeoutMs });
    try {
      const queued = await queueDeliveries(store, 'key-a', hang.url, 10);
      dispatcher.start();
      await waitFor('2 attempts in flight', async () => (hang.open >= 2 ? true : undefined), 5_000);
      await dispatcher.poll();
      // Just after the first lease (the attempt's deadline + 20 s): only the 2 attempts in flight are free again.
      const later = await store.outbox.claim(Date.now() + timeoutMs + 21_000, 1_000, 100);
      assert.equal(later.length, 2);
      assert.equal(dispatcher.heldCount, queued.length);
    } finally {
      await dispatcher.close();
      await hang.close();
      await store.close();
    }
  });
});
