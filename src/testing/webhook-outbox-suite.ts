import assert from 'node:assert/strict';
import type { Job } from '../domain/job.js';
import type { JobStore } from '../storage/job-store.js';
import type { WebhookOutbox } from '../storage/webhook-outbox.js';
import { at, makeJob } from './job-fixtures.js';
import type { SuiteRunner } from './suite-runner.js';

/** A job store and the outbox its final transitions write (an outbox is tested with its writer). */
export interface OutboxPair {
  store: JobStore;
  outbox: WebhookOutbox;
}

/** Options of {@link webhookOutboxSuite}. */
export interface WebhookOutboxSuiteOptions extends SuiteRunner {
  /**
   * Makes a fresh, empty store and its outbox (each test gets its own; on a shared backend, in a namespace of their
   * own). The store must stamp and queue with `now` (the built-in stores take it as their `now` option).
   */
  create(settings: { now: () => Date }): Promise<OutboxPair>;
  /** Releases what `create` made (and deletes its data on a shared backend). Default: `pair.store.close()`. */
  destroy?(pair: OutboxPair): Promise<void>;
}

const NOW = new Date('2025-06-01T12:00:00.000Z');
const LEASE_MS = 30_000;

/** A job with a webhook. */
function hooked(createdAt: string): Job {
  return { ...makeJob({ createdAt }), webhook: { url: 'https://example.com/hook', baseUrl: 'https://api.example.com' } };
}

/**
 * The contract of a {@link WebhookOutbox} with the {@link JobStore} that writes it, as a test suite for node:test,
 * vitest or mocha: `webhookOutboxSuite('mine', { describe, it, create: async ({ now }) => { const store = new
 * MyStore({ now }); return { store, outbox: store.outbox }; } })`.
 *
 * It checks that the first final state of a job with a `webhook` queues exactly one delivery, due at once and
 * claimable as soon as the transition resolved (written in the same step), and that nothing else queues one (a
 * job without a webhook, a state that is not final, a later write of a final record, the loser of two racing final
 * transitions); that claims are leased (one of racing claims gets a delivery; it comes back with the next attempt
 * number when its lease ends), honour `limit` and go oldest due first; and that settling reschedules or removes.
 */
export function webhookOutboxSuite(name: string, options: WebhookOutboxSuiteOptions): void {
  const { describe, it } = options;
  const now = NOW.getTime();
  const withPair = async (test: (pair: OutboxPair) => Promise<void>) => {
    const pair = await options.create({ now: () => NOW });
    try {
      await test(pair);
    } finally {
      await (options.destroy ? options.destroy(pair) : pair.store.close());
    }
  };
  /** Creates `job` and moves it to `ongoing`. */
  const started = async (store: JobStore, job: Job) => {
    await store.create(job);
    assert.ok(await store.transition(job.uid, ['pending'], 'ongoing'));
  };

  describe(`WebhookOutbox contract: ${name}`, () => {
    it('queues one delivery, due at once, with the first final state of a job with a webhook, and none for other writes', () =>
      withPair(async ({ store, outbox }) => {
        const job = hooked(at(1));
        const plain = makeJob({ createdAt: at(2) });
        await started(store, job);
        await started(store, plain);
        assert.equal(await store.patch(job.uid, ['ongoing'], { heartbeatAt: at(3) }), true);
        assert.deepEqual(await outbox.claim(now + 1_000, LEASE_MS, 10), [], 'nothing is queued before a final state');
        assert.ok(await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(4) }));
        assert.ok(await store.transition(plain.uid, ['ongoing'], 'error', { failure: { code: 'x', message: 'y' } }));
        assert.deepEqual(await outbox.claim(now, LEASE_MS, 10), [{ uid: job.uid, attempt: 1 }], 'due at the store clock of the final write; none for a job without a webhook');
        await outbox.settle(job.uid, undefined);
        // A later write of the final record (a late patch) queues nothing again.
        assert.equal(await store.patch(job.uid, ['completed'], { heartbeatAt: at(9) }), true);
        assert.deepEqual(await outbox.claim(now + 10_000_000, LEASE_MS, 10), []);
      }));

    it('queues one delivery when two final transitions race (one wins the compare-and-set)', () =>
      withPair(async ({ store, outbox }) => {
        const job = hooked(at(1));
        await started(store, job);
        const results = await Promise.all([
          store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(2) }),
          store.transition(job.uid, ['ongoing'], 'error', { failure: { code: 'x', message: 'y' } }),
          store.transition(job.uid, ['pending', 'ongoing'], 'error', { failure: { code: 'cancelled', message: 'z' } }),
        ]);
        assert.equal(results.filter(Boolean).length, 1);
        assert.deepEqual(await outbox.claim(now + 1_000, LEASE_MS, 10), [{ uid: job.uid, attempt: 1 }]);
      }));

    it('leases each claim: one of racing claims gets it, and it comes back when the lease ends, with the next attempt number', () =>
      withPair(async ({ store, outbox }) => {
        const job = hooked(at(1));
        await started(store, job);
        assert.ok(await store.transition(job.uid, ['ongoing'], 'error', { failure: { code: 'x', message: 'y' } }));
        const claimed = await Promise.all([outbox.claim(now + 1_000, LEASE_MS, 10), outbox.claim(now + 1_000, LEASE_MS, 10)]);
        assert.deepEqual(claimed.flat(), [{ uid: job.uid, attempt: 1 }], 'one of two racing claims gets it');
        assert.deepEqual(await outbox.claim(now + 1_000 + LEASE_MS - 1, LEASE_MS, 10), [], 'leased');
        assert.deepEqual(await outbox.claim(now + 1_000 + LEASE_MS, LEASE_MS, 10), [{ uid: job.uid, attempt: 2 }], 'claimable again when the lease ends');
      }));

    it('settling schedules the next attempt or removes the delivery; settling an unknown uid does nothing', () =>
      withPair(async ({ store, outbox }) => {
        const job = hooked(at(1));
        await started(store, job);
        assert.ok(await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(2) }));
        assert.equal((await outbox.claim(now, LEASE_MS, 10)).length, 1);
        await outbox.settle(job.uid, now + 100_000);
        assert.deepEqual(await outbox.claim(now + 99_999, LEASE_MS, 10), [], 'not due before its next attempt, whatever the lease said');
        assert.deepEqual(await outbox.claim(now + 100_000, LEASE_MS, 10), [{ uid: job.uid, attempt: 2 }]);
        await outbox.settle(job.uid, undefined);
        assert.deepEqual(await outbox.claim(now + 10_000_000, LEASE_MS, 10), [], 'settled for good');
        await outbox.settle('no-such-job', undefined);
        await outbox.settle('no-such-job', now);
        assert.deepEqual(await outbox.claim(now + 10_000_000, LEASE_MS, 10), [], 'settling an unknown uid queues nothing');
      }));

    it('claims at most `limit`, oldest due first', () =>
      withPair(async ({ store, outbox }) => {
        const jobs = [1, 2, 3].map((s) => hooked(at(s)));
        for (const job of jobs) {
          await started(store, job);
          assert.ok(await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(9) }));
        }
        // Reschedule so that the due order is the reverse of the creation order.
        assert.equal((await outbox.claim(now, LEASE_MS, 10)).length, 3);
        for (const [i, job] of jobs.entries()) await outbox.settle(job.uid, now + 1_000 * (3 - i));
        const first = await outbox.claim(now + 5_000, LEASE_MS, 2);
        assert.deepEqual(first.map((d) => d.uid), [jobs[2]!.uid, jobs[1]!.uid]);
        assert.deepEqual(await outbox.claim(now + 5_000, LEASE_MS, 2), [{ uid: jobs[0]!.uid, attempt: 2 }]);
      }));
  });
}
