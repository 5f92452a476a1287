import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { IdempotencyStore } from '../storage/idempotency-store.js';
import { eventually } from './eventually.js';
import type { SuiteRunner } from './suite-runner.js';

/** Options of {@link idempotencyStoreSuite}. */
export interface IdempotencyStoreSuiteOptions extends SuiteRunner {
  /** Makes a fresh, empty store (each test gets its own; on a shared backend, in a namespace of its own). */
  create(): Promise<IdempotencyStore>;
  /** Releases a store made by `create` (and deletes its data on a shared backend). Default: `store.close()`. */
  destroy?(store: IdempotencyStore): Promise<void>;
}

const ANSWER = { status: 201, body: { uid: 'u-1', nested: { list: [1, 'two'] } } };

/**
 * The contract of an {@link IdempotencyStore}, as a test suite for node:test, vitest or mocha:
 * `idempotencyStoreSuite('mine', { describe, it, create: async () => new MyIdempotencyStore() })`.
 *
 * It checks reserve, in flight and done (the answer as it was saved, a copy), that of racing reservations of a
 * free key exactly one wins, that release frees a reservation but never an answer, and that reservations and
 * answers lapse after their time (by the real clock: a backend's own key TTL knows no other; about a second).
 */
export function idempotencyStoreSuite(name: string, options: IdempotencyStoreSuiteOptions): void {
  const { describe, it } = options;
  const withStore = async (test: (store: IdempotencyStore, key: string) => Promise<void>) => {
    const store = await options.create();
    try {
      await test(store, `suite-${randomUUID()}`);
    } finally {
      await (options.destroy ? options.destroy(store) : store.close());
    }
  };

  describe(`IdempotencyStore contract: ${name}`, () => {
    it('reserves a free key, reports it in flight to another request, then done with the saved answer', () =>
      withStore(async (store, key) => {
        assert.deepEqual(await store.reserve(key, 'fp-1', 60_000), { state: 'reserved' });
        assert.deepEqual(await store.reserve(key, 'fp-2', 60_000), { state: 'in_flight', fingerprint: 'fp-1' });
        const answer = structuredClone(ANSWER);
        await store.save(key, 'fp-1', answer, 60_000);
        answer.body.nested.list.push(3);
        const done = { state: 'done', fingerprint: 'fp-1', answer: ANSWER };
        assert.deepEqual(await store.reserve(key, 'fp-1', 60_000), done, 'the stored answer, as it was saved');
        const read = await store.reserve(key, 'fp-9', 60_000);
        if (read.state === 'done') (read.answer.body as typeof ANSWER.body).nested.list.push(4);
        assert.deepEqual(await store.reserve(key, 'fp-1', 60_000), done, 'a read answer is a copy');
        assert.deepEqual(await store.reserve(`${key}-other`, 'fp-1', 60_000), { state: 'reserved' }, 'keys are independent');
      }));

    it('of racing reservations of a free key exactly one wins', () =>
      withStore(async (store, key) => {
        const race = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((fp) => store.reserve(key, fp, 60_000)));
        const winners = race.filter((r) => r.state === 'reserved');
        assert.equal(winners.length, 1, JSON.stringify(race));
        const holder = ['a', 'b', 'c', 'd', 'e'][race.indexOf(winners[0]!)];
        for (const r of race) if (r.state !== 'reserved') assert.deepEqual(r, { state: 'in_flight', fingerprint: holder });
      }));

    it('release frees a reservation at once and never deletes an answer', () =>
      withStore(async (store, key) => {
        assert.deepEqual(await store.reserve(key, 'fp-1', 60_000), { state: 'reserved' });
        await store.release(key);
        assert.deepEqual(await store.reserve(key, 'fp-2', 60_000), { state: 'reserved' }, 'freed');
        await store.save(key, 'fp-2', ANSWER, 60_000);
        await store.release(key);
        assert.deepEqual(await store.reserve(key, 'fp-3', 60_000), { state: 'done', fingerprint: 'fp-2', answer: ANSWER }, 'kept');
        await store.release(`${key}-never-reserved`);
      }));

    it('a reservation (a request that crashed) and an answer lapse after their time', () =>
      withStore(async (store, key) => {
        assert.deepEqual(await store.reserve(key, 'fp-1', 300), { state: 'reserved' });
        await eventually('the reservation to lapse', async () => (await store.reserve(key, 'fp-2', 60_000)).state === 'reserved');
        await store.save(key, 'fp-2', ANSWER, 300);
        assert.equal((await store.reserve(key, 'fp-2', 60_000)).state, 'done');
        await eventually('the answer to lapse', async () => (await store.reserve(key, 'fp-3', 60_000)).state === 'reserved');
      }));
  });
}
