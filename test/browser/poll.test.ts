/** The demo page's job poller (web/src/poll.ts): backoff while nothing changes, reset on change, stop when final. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF, pollJob, type JobStatus } from '../../web/src/poll.js';

type Job = { status: JobStatus };

/** Replaces setTimeout with a recorder: the test fires the pending callback itself. */
function fakeTimers(t: { after(fn: () => void): void }) {
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const delays: number[] = [];
  let pending: (() => void) | undefined;
  globalThis.setTimeout = ((callback: () => void, delay: number) => {
    delays.push(delay);
    pending = callback;
    return 1 as unknown as NodeJS.Timeout;
  }) as typeof setTimeout;
  globalThis.clearTimeout = (() => {
    pending = undefined;
  }) as typeof clearTimeout;
  t.after(() => Object.assign(globalThis, real));
  return {
    delays,
    scheduled: () => pending !== undefined,
    /** Runs the scheduled poll and lets its request settle. */
    async fire() {
      const callback = pending;
      assert.ok(callback, 'a poll is scheduled');
      pending = undefined;
      callback();
      await new Promise((ok) => setImmediate(ok));
    },
  };
}

function answers(...items: (JobStatus | Error)[]) {
  let calls = 0;
  return {
    calls: () => calls,
    fetch: async (): Promise<Job> => {
      const next = items[calls++];
      if (next instanceof Error) throw next;
      return { status: next };
    },
  };
}

test('the delay grows while the status stays the same, starts short again after a change, and polling stops when final', async (t) => {
  const timers = fakeTimers(t);
  const server = answers('pending', 'pending', 'ongoing', 'ongoing', 'ongoing', 'completed');
  const seen: JobStatus[] = [];
  pollJob<Job>({ status: 'pending' }, server.fetch, (job) => seen.push(job.status), () => assert.fail('no error expected'));
  while (timers.scheduled()) await timers.fire();
  const f = BACKOFF.firstMs;
  const g = BACKOFF.factor;
  assert.deepEqual(timers.delays, [f, f * g, f * g * g, f, f * g, f * g * g]);
  assert.deepEqual(seen, ['pending', 'pending', 'ongoing', 'ongoing', 'ongoing', 'completed']);
  assert.equal(server.calls(), 6);
});

test('the delay is capped; failed requests back off further and polling goes on', async (t) => {
  const timers = fakeTimers(t);
  const statuses: (JobStatus | Error)[] = Array.from({ length: 12 }, () => 'ongoing');
  const server = answers(...statuses, new Error('429'), new Error('429'), new Error('429'), 'error');
  const errors: unknown[] = [];
  pollJob<Job>({ status: 'ongoing' }, server.fetch, () => undefined, (e) => errors.push(e));
  while (timers.scheduled()) await timers.fire();
  assert.equal(Math.max(...timers.delays.slice(0, 13)), BACKOFF.maxMs);
  assert.deepEqual(timers.delays.slice(13), [BACKOFF.maxAfterErrorMs, BACKOFF.maxAfterErrorMs, BACKOFF.maxAfterErrorMs]);
  assert.equal(errors.length, 3);
  assert.equal(server.calls(), 16);
});

test('a final job is not polled, and stop() cancels the next poll', async (t) => {
  const timers = fakeTimers(t);
  const server = answers('ongoing');
  pollJob<Job>({ status: 'completed' }, server.fetch, () => undefined, () => undefined);
  assert.equal(timers.scheduled(), false);
  const stop = pollJob<Job>({ status: 'pending' }, server.fetch, () => undefined, () => undefined);
  assert.equal(timers.scheduled(), true);
  stop();
  assert.equal(timers.scheduled(), false);
  assert.equal(server.calls(), 0);
});
