import assert from 'node:assert/strict';
import type { Job, JobStatus } from '../domain/job.js';
import type { JobStore } from '../storage/job-store.js';
import { at, makeJob, uids } from './job-fixtures.js';
import type { SuiteRunner } from './suite-runner.js';

/** What {@link JobStoreSuiteOptions.create} is given for the store it makes. */
export interface JobStoreSettings {
  /**
   * The store's clock: it must stamp `updatedAt` on transitions and judge record expiry with it (the built-in
   * stores take it as their `now` option). The suite sets it to fixed or moving times.
   */
  now: () => Date;
  /** How long a final record is kept (the store's own default when left out). */
  recordRetentionMs?: number;
}

/** An optional part of {@link JobStore} that the suite checks when the store has its methods. */
export type JobStoreCapability = 'recordExpiry' | 'ping';

/** The methods of each optional part: a store has all of a part's methods or none. */
const CAPABILITY_METHODS: Record<JobStoreCapability, readonly (keyof JobStore)[]> = {
  recordExpiry: ['deleteExpired'],
  ping: ['ping'],
};

/** Options of {@link jobStoreSuite}. */
export interface JobStoreSuiteOptions extends SuiteRunner {
  /** Makes a fresh, empty store (each test gets its own; stores on a shared backend need their own namespace). */
  create(settings: JobStoreSettings): Promise<JobStore>;
  /** Releases a store made by `create` (and deletes its data on a shared backend). Default: `store.close()`. */
  destroy?(store: JobStore): Promise<void>;
  /**
   * Optional parts the store must have: their tests fail, instead of passing without checking anything, when the
   * store lacks them. Default: none (each optional part is checked when the store has its methods).
   */
  expect?: readonly JobStoreCapability[];
}

const NOW = new Date('2025-06-01T12:00:00.000Z');

/**
 * The contract every {@link JobStore} keeps, as a test suite for node:test, vitest or mocha:
 * `jobStoreSuite('my store', { describe, it, create: async ({ now }) => new MyStore({ now }) })`.
 *
 * It checks create/get (scoped to an owner, a second create refused), `transition` as a compare-and-set (one
 * winner of 20 racing transitions, a refused one changes nothing, `updatedAt` from the store's clock), writes guarded
 * on the attempt (one take-over of five wins, the old attempt can neither patch nor complete), `patch`
 * (never undoing a final state), listings (newest first, ties by uid, pages, totals, status filters), `uidsByStatus`,
 * `delete` and that returned records are copies.
 *
 * The optional parts of the interface are checked only when the store under test has their methods (a store must
 * have all methods of a part or none; that is checked always). List in `expect` the parts your store implements,
 * so that their tests fail rather than pass when a method goes missing:
 * - `recordExpiry` (`deleteExpired`): records go `recordRetentionMs` after their final state, never earlier, with
 *   every index entry, and listings never show them even before a sweep; a `kept` record never goes;
 * - `ping`: resolves while the backend answers; `suspectedDown()`, which a store may have only with `ping`, is then
 *   false.
 */
export function jobStoreSuite(name: string, options: JobStoreSuiteOptions): void {
  const { describe, it } = options;
  const has = (store: JobStore, capability: JobStoreCapability): boolean => {
    const present = CAPABILITY_METHODS[capability].filter((method) => typeof store[method] === 'function');
    assert.ok(present.length === 0 || present.length === CAPABILITY_METHODS[capability].length, `${capability}: the store has ${present.join(', ')} but not all of ${CAPABILITY_METHODS[capability].join(', ')}`);
    if (options.expect?.includes(capability)) assert.equal(present.length, CAPABILITY_METHODS[capability].length, `the store was expected to have ${capability}`);
    return present.length > 0;
  };
  /** Runs `test` on a fresh store whose clock is `now`, and releases the store whatever happens. */
  const withStore = async (test: (store: JobStore) => Promise<void>, now: () => Date = () => NOW, recordRetentionMs?: number) => {
    const store = await options.create(recordRetentionMs === undefined ? { now } : { now, recordRetentionMs });
    try {
      await test(store);
    } finally {
      await (options.destroy ? options.destroy(store) : store.close());
    }
  };

  describe(`JobStore contract: ${name}`, () => {
    it('creates and gets a job, scoped to its owner', () =>
      withStore(async (store) => {
        const job = makeJob({ owner: 'alice', createdAt: at(1) });
        await store.create(job);
        assert.deepEqual(await store.get(job.uid), job);
        assert.deepEqual(await store.get(job.uid, 'alice'), job);
        assert.equal(await store.get(job.uid, 'bob'), undefined);
        assert.equal(await store.get('no-such-job'), undefined);
      }));

    it('refuses a second create with the same uid and keeps the first record', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        await assert.rejects(store.create({ ...job, owner: 'mallory' }), /already exists/);
        assert.deepEqual(await store.get(job.uid), job);
        assert.equal((await store.list({ owner: job.owner, kind: job.kind, page: 1, perPage: 10 })).total, 1);
        assert.equal((await store.list({ owner: 'mallory', kind: job.kind, page: 1, perPage: 10 })).total, 0);
      }));

    it('transitions from an allowed state, applying the patch and stamping updatedAt', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        const ongoing = await store.transition(job.uid, ['pending'], 'ongoing', { heartbeatAt: at(2) });
        assert.equal(ongoing?.status, 'ongoing');
        assert.equal(ongoing?.heartbeatAt, at(2));
        assert.equal(ongoing?.updatedAt, NOW.toISOString());
        assert.equal(ongoing?.createdAt, job.createdAt);
        const result = { video: { id: 'video-blob-1', contentType: 'video/mp4', size: 99 } };
        const done = await store.transition(job.uid, ['ongoing'], 'completed', { result, completedAt: at(3) });
        assert.deepEqual(await store.get(job.uid), done);
        assert.deepEqual(done?.result, result);
        assert.equal(done?.completedAt, at(3));
        assert.equal(done?.heartbeatAt, at(2));
      }));

    it('refuses a transition from a wrong state and leaves the record unchanged', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        const late = await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(5) });
        assert.equal(late, undefined);
        assert.deepEqual(await store.get(job.uid), job);
        assert.deepEqual(await store.uidsByStatus('completed'), []);
        assert.deepEqual(await store.uidsByStatus('pending'), [job.uid]);
        assert.equal(await store.transition('no-such-job', ['pending'], 'ongoing'), undefined);
      }));

    it('guards writes on the attempt: only the holder of the current attempt may write, and one take-over wins', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        assert.equal(await store.transition(job.uid, ['pending'], 'ongoing', { attempt: 1 }, { attempt: 1 }), undefined, 'a pending record is at attempt 0');
        assert.equal((await store.transition(job.uid, ['pending'], 'ongoing', { attempt: 1 }, { attempt: 0 }))?.attempt, 1);
        const takeOvers = await Promise.all(
          Array.from({ length: 5 }, () => store.transition(job.uid, ['ongoing'], 'ongoing', { attempt: 2 }, { attempt: 1 })),
        );
        assert.equal(takeOvers.filter(Boolean).length, 1, 'exactly one take-over of attempt 1 wins');
        assert.equal(await store.patch(job.uid, ['ongoing'], { heartbeatAt: at(3) }, { attempt: 1 }), false, 'the old attempt may not write');
        assert.equal(await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(4) }, { attempt: 1 }), undefined);
        assert.equal(await store.patch(job.uid, ['ongoing'], { heartbeatAt: at(3) }, { attempt: 2 }), true);
        const done = await store.transition(job.uid, ['ongoing'], 'completed', { completedAt: at(4) }, { attempt: 2 });
        assert.deepEqual([done?.status, done?.attempt, done?.heartbeatAt], ['completed', 2, at(3)]);
      }));

    it('lets exactly one of 20 concurrent transitions from pending win', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        const targets: JobStatus[] = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? 'ongoing' : 'error'));
        const results = await Promise.all(
          targets.map((to, i) => store.transition(job.uid, ['pending'], to, { progress: { done: i, total: 20, unit: 'x' } })),
        );
        const winners = results.filter((result): result is Job => result !== undefined);
        assert.equal(winners.length, 1);
        const winner = winners[0];
        assert.deepEqual(await store.get(job.uid), winner);
        assert.deepEqual(await store.uidsByStatus(winner.status), [job.uid]);
        assert.deepEqual(await store.uidsByStatus('pending'), []);
        const other = winner.status === 'ongoing' ? 'error' : 'ongoing';
        assert.deepEqual(await store.uidsByStatus(other), []);
      }));

    it('patches only while the status allows, without touching status or updatedAt', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        assert.equal(await store.patch(job.uid, ['ongoing'], { progress: { done: 1, total: 2, unit: 'frames' } }), false);
        assert.deepEqual(await store.get(job.uid), job);
        assert.ok(await store.transition(job.uid, ['pending'], 'ongoing'));
        const progress = { done: 1, total: 2, unit: 'frames' };
        assert.equal(await store.patch(job.uid, ['ongoing'], { progress, heartbeatAt: at(9) }), true);
        const patched = await store.get(job.uid);
        assert.deepEqual(patched?.progress, progress);
        assert.equal(patched?.heartbeatAt, at(9));
        assert.equal(patched?.status, 'ongoing');
        assert.equal(patched?.updatedAt, NOW.toISOString());
        assert.equal(await store.patch('no-such-job', ['ongoing'], { heartbeatAt: at(9) }), false);
      }));

    it('never lets a concurrent patch undo a final state', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        await store.transition(job.uid, ['pending'], 'ongoing');
        const patches = Array.from({ length: 10 }, (_, i) => store.patch(job.uid, ['ongoing'], { heartbeatAt: at(10 + i) }));
        const failed = store.transition(job.uid, ['pending', 'ongoing'], 'error', { failure: { code: 'x', message: 'y' } });
        await Promise.all([...patches, failed]);
        const final = await store.get(job.uid);
        assert.equal(final?.status, 'error');
        assert.deepEqual(final?.failure, { code: 'x', message: 'y' });
        assert.deepEqual(await store.uidsByStatus('error'), [job.uid]);
        assert.deepEqual(await store.uidsByStatus('ongoing'), []);
        assert.equal(await store.patch(job.uid, ['ongoing'], { heartbeatAt: at(99) }), false);
      }));

    it('lists an owner’s jobs of one kind newest first, paginated, with a total', () =>
      withStore(async (store) => {
        const mine = [3, 1, 7, 5, 2, 6, 4].map((s) => makeJob({ owner: 'alice', createdAt: at(s) }));
        const others = [
          makeJob({ owner: 'bob', createdAt: at(8) }),
          makeJob({ owner: 'alice', kind: 'separation', createdAt: at(9) }),
        ];
        await Promise.all([...mine, ...others].map((job) => store.create(job)));
        const newestFirst = [...mine].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
        const page = (n: number) => store.list({ owner: 'alice', kind: 'avatarVideo', page: n, perPage: 3 });
        const pages = await Promise.all([page(1), page(2), page(3), page(4)]);
        assert.deepEqual(pages.map((p) => p.total), [7, 7, 7, 7]);
        assert.deepEqual(pages.map((p) => uids(p.items)), [
          uids(newestFirst.slice(0, 3)),
          uids(newestFirst.slice(3, 6)),
          uids(newestFirst.slice(6)),
          [],
        ]);
        assert.deepEqual(pages[0].items[0], newestFirst[0]);
        const separation = await store.list({ owner: 'alice', kind: 'separation', page: 1, perPage: 10 });
        assert.deepEqual(uids(separation.items), [others[1].uid]);
        assert.equal((await store.list({ owner: 'carol', kind: 'avatarVideo', page: 1, perPage: 10 })).total, 0);
      }));

    it('breaks createdAt ties by uid, descending', () =>
      withStore(async (store) => {
        const tied = ['b', 'd', 'a', 'c'].map((c) => makeJob({ uid: `${c}0000000-0000-4000-8000-000000000000`, createdAt: at(1) }));
        await Promise.all(tied.map((job) => store.create(job)));
        const listed = await store.list({ owner: 'owner-a', kind: 'avatarVideo', page: 1, perPage: 10 });
        assert.deepEqual(uids(listed.items).map((uid) => uid[0]), ['d', 'c', 'b', 'a']);
        assert.deepEqual((await store.uidsByStatus('pending')).map((uid) => uid[0]), ['a', 'b', 'c', 'd']);
      }));

    it('filters a listing by status exactly after transitions', () =>
      withStore(async (store) => {
        const jobs = Array.from({ length: 6 }, (_, i) => makeJob({ owner: 'alice', createdAt: at(i) }));
        await Promise.all(jobs.map((job) => store.create(job)));
        await store.transition(jobs[1].uid, ['pending'], 'ongoing');
        await store.transition(jobs[4].uid, ['pending'], 'ongoing');
        await store.transition(jobs[4].uid, ['ongoing'], 'completed');
        await store.transition(jobs[5].uid, ['pending'], 'error');
        const byStatus = async (status: JobStatus, perPage = 10, page = 1) =>
          store.list({ owner: 'alice', kind: 'avatarVideo', status, page, perPage });
        const pending = await byStatus('pending');
        assert.equal(pending.total, 3);
        assert.deepEqual(uids(pending.items), [jobs[3].uid, jobs[2].uid, jobs[0].uid]);
        assert.ok(pending.items.every((job) => job.status === 'pending'));
        assert.deepEqual(uids((await byStatus('ongoing')).items), [jobs[1].uid]);
        assert.deepEqual(uids((await byStatus('completed')).items), [jobs[4].uid]);
        assert.deepEqual(uids((await byStatus('error')).items), [jobs[5].uid]);
        const second = await byStatus('pending', 2, 2);
        assert.equal(second.total, 3);
        assert.deepEqual(uids(second.items), [jobs[0].uid]);
      }));

    it('rejects a page or perPage below 1', () =>
      withStore(async (store) => {
        await assert.rejects(store.list({ owner: 'a', kind: 'avatarVideo', page: 0, perPage: 10 }), RangeError);
        await assert.rejects(store.list({ owner: 'a', kind: 'avatarVideo', page: 1, perPage: 0 }), RangeError);
        await assert.rejects(store.list({ owner: 'a', kind: 'avatarVideo', page: 1.5, perPage: 10 }), RangeError);
      }));

    it('gives uids by status across owners, oldest first, optionally by kind', () =>
      withStore(async (store) => {
        const a = makeJob({ owner: 'alice', createdAt: at(3) });
        const b = makeJob({ owner: 'bob', createdAt: at(1) });
        const c = makeJob({ owner: 'bob', kind: 'separation', createdAt: at(2) });
        const d = makeJob({ owner: 'carol', createdAt: at(4) });
        await Promise.all([a, b, c, d].map((job) => store.create(job)));
        await store.transition(d.uid, ['pending'], 'ongoing');
        assert.deepEqual(await store.uidsByStatus('pending'), [b.uid, c.uid, a.uid]);
        assert.deepEqual(await store.uidsByStatus('pending', 'avatarVideo'), [b.uid, a.uid]);
        assert.deepEqual(await store.uidsByStatus('pending', 'separation'), [c.uid]);
        assert.deepEqual(await store.uidsByStatus('ongoing'), [d.uid]);
        assert.deepEqual(await store.uidsByStatus('ongoing', 'separation'), []);
        assert.deepEqual(await store.uidsByStatus('completed'), []);
      }));

    it('record expiry (when the store has deleteExpired): deletes a record with its index entries recordRetentionMs after it became final, never earlier', async () => {
      let clock = NOW.getTime();
      await withStore(async (store) => {
        if (!has(store, 'recordExpiry')) return;
        const [done, failed, running] = [1, 2, 3].map((s) => makeJob({ owner: 'alice', createdAt: at(s) }));
        await Promise.all([done, failed, running].map((job) => store.create(job)));
        await store.transition(done.uid, ['pending'], 'ongoing');
        await store.transition(done.uid, ['ongoing'], 'completed');
        await store.transition(running.uid, ['pending'], 'ongoing');
        clock += 30_000;
        await store.transition(failed.uid, ['pending'], 'error');
        const all = () => store.list({ owner: 'alice', kind: 'avatarVideo', page: 1, perPage: 10 });
        const totalOf = async (status: JobStatus) => (await store.list({ owner: 'alice', kind: 'avatarVideo', status, page: 1, perPage: 10 })).total;

        clock = NOW.getTime() + 59_999;
        // A later write to a final record keeps its first expiry.
        assert.equal(await store.patch(done.uid, ['completed'], { heartbeatAt: at(50) }), true);
        assert.equal(await store.deleteExpired!(), 0);
        assert.equal((await all()).total, 3);

        clock = NOW.getTime() + 60_000;
        assert.equal(await store.deleteExpired!(), 1);
        assert.equal(await store.get(done.uid), undefined);
        assert.equal(await store.transition(done.uid, ['completed'], 'error'), undefined);
        assert.deepEqual(await store.uidsByStatus('completed'), []);
        assert.equal(await totalOf('completed'), 0);
        assert.deepEqual(uids((await all()).items), [running.uid, failed.uid]);

        // Lists and totals never count an expired record, even before a sweep ran.
        clock = NOW.getTime() + 90_000;
        const listed = await all();
        assert.equal(listed.total, 1);
        assert.deepEqual(uids(listed.items), [running.uid]);
        assert.equal(await totalOf('error'), 0);
        assert.equal(await store.get(failed.uid), undefined);
        assert.deepEqual(await store.uidsByStatus('error'), []);

        // A job that is not final is never expired.
        clock += 365 * 24 * 3_600_000;
        assert.equal(await store.deleteExpired!(), 0);
        assert.equal((await store.get(running.uid))?.status, 'ongoing');
        assert.deepEqual(await store.uidsByStatus('ongoing'), [running.uid]);
      }, () => new Date(clock), 60_000);
    });

    it('deletes a record with its index entries, whatever its status; false for a missing one', () =>
      withStore(async (store) => {
        const [pending, done] = [1, 2].map((s) => makeJob({ owner: 'alice', createdAt: at(s) }));
        await Promise.all([pending, done].map((job) => store.create(job)));
        await store.transition(done.uid, ['pending'], 'ongoing');
        await store.transition(done.uid, ['ongoing'], 'completed');
        assert.equal(await store.delete(pending.uid), true);
        assert.equal(await store.delete(done.uid), true);
        assert.equal(await store.delete(done.uid), false);
        assert.equal(await store.get(pending.uid), undefined);
        assert.equal(await store.transition(pending.uid, ['pending'], 'ongoing'), undefined);
        assert.deepEqual(await store.uidsByStatus('pending'), []);
        assert.deepEqual(await store.uidsByStatus('completed'), []);
        const listed = await store.list({ owner: 'alice', kind: 'avatarVideo', page: 1, perPage: 10 });
        assert.deepEqual({ total: listed.total, items: uids(listed.items) }, { total: 0, items: [] });
        // The uid is free again.
        await store.create(pending);
        assert.equal((await store.get(pending.uid))?.status, 'pending');
      }));

    it('record expiry (when the store has deleteExpired): never expires a kept record, which delete removes', async () => {
      let clock = NOW.getTime();
      await withStore(async (store) => {
        if (!has(store, 'recordExpiry')) return;
        const kept = { ...makeJob({ owner: 'alice', createdAt: at(1) }), kept: true };
        await store.create(kept);
        await store.transition(kept.uid, ['pending'], 'error', { failure: { code: 'canceled', message: 'test' } });
        clock += 365 * 24 * 3_600_000;
        assert.equal(await store.deleteExpired!(), 0);
        assert.equal((await store.get(kept.uid))?.status, 'error');
        assert.equal((await store.list({ owner: 'alice', kind: 'avatarVideo', page: 1, perPage: 10 })).total, 1);
        assert.equal(await store.delete(kept.uid), true);
        assert.equal((await store.list({ owner: 'alice', kind: 'avatarVideo', page: 1, perPage: 10 })).total, 0);
      }, () => new Date(clock), 60_000);
    });

    it('returns copies: mutating a returned record does not change the store', () =>
      withStore(async (store) => {
        const job = makeJob({ createdAt: at(1) });
        await store.create(job);
        job.status = 'error';
        const got = await store.get(job.uid);
        assert.equal(got?.status, 'pending');
        if (got) got.owner = 'mallory';
        assert.equal((await store.get(job.uid))?.owner, 'owner-a');
      }));

    it('has all methods of each optional part or none, and those listed in `expect`', () =>
      withStore(async (store) => {
        for (const capability of Object.keys(CAPABILITY_METHODS) as JobStoreCapability[]) has(store, capability);
      }));

    it('ping (when the store has it): resolves while the backend answers, and suspectedDown() is then false', () =>
      withStore(async (store) => {
        const hints = typeof store.suspectedDown === 'function';
        if (!has(store, 'ping')) {
          assert.ok(!hints, 'suspectedDown() needs ping(): a caller confirms the hint with it');
          return;
        }
        await store.ping!();
        await Promise.all([store.ping!(), store.ping!(), store.get('no-such-job')]);
        if (hints) assert.equal(store.suspectedDown!(), false, 'a store that just answered is not suspected down');
      }));

  });
}
