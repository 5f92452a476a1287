/**
 * The webhook dispatcher on its own: gives a delivery up after its last retry, and reports each outcome.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryJobStore } from '../../src/index.js';
import { LinkBuilder } from '../../src/core/links.js';
import { silentLogger } from '../../src/domain/logger.js';
import { noMetrics } from '../../src/core/metrics/metrics-recorder.js';
import { WebhookDispatcher } from '../../src/core/webhooks/dispatcher.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { waitFor } from '../helpers/checks.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { makeJob } from '../../src/testing/job-fixtures.js';

describe('WebhookDispatcher', () => {
  it('retries per the schedule, then gives up; every attempt is counted by outcome', async () => {
    const receiver = await startWebhookReceiver([500, 503, 500]);
    const store = new MemoryJobStore();
    const outcomes: string[] = [];
    const dispatcher = new WebhookDispatcher(
      store,
      (baseUrl) => new LinkBuilder(new UrlSigner(randomBytes(32)), baseUrl, 60_000),
      { ...noMetrics, webhookDelivery: (outcome) => outcomes.push(outcome) },
      silentLogger,
      { secret: `whsec_${randomBytes(24).toString('base64')}`, pollMs: 20, retryDelaysMs: [50, 50], timeoutMs: 2_000, concurrency: 4, allowPrivateAddresses: true },
    );
    try {
      const job = { ...makeJob({ kind: 'separation' }), webhook: { url: receiver.url, baseUrl: 'http://api.example' } };
      await store.create(job);
      await store.transition(job.uid, ['pending'], 'error', { failure: { code: 'x', message: 'y' } });
      dispatcher.start();
      await waitFor('three attempts', async () => (outcomes.length >= 3 ? true : undefined), 5_000);
      await sleep(200);
      assert.deepEqual(outcomes, ['failed', 'failed', 'gave_up']);
      assert.equal(receiver.received.length, 3);
      assert.equal(new Set(receiver.received.map((hook) => hook.headers['webhook-id'])).size, 1);
      assert.deepEqual(await store.claimWebhooks(Date.now() + 1e9, 1_000, 10), [], 'given up: no longer queued');
    } finally {
      await dispatcher.close();
      await receiver.close();
      await store.close();
    }
  });
});
