/** The client's waitForFinal: backoff while nothing changes, reset on change, transient failures retried, abort. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_BACKOFF, VirtualAnchorApiError, VirtualAnchorNetworkError, waitForFinal, type JobStatus } from '../../src/client/index.js';

type Job = { status: JobStatus };

/** A job that answers the given statuses (or throws the given errors) one poll at a time. */
function answers(...items: (JobStatus | Error)[]) {
  let calls = 0;
  return {
    calls: () => calls,
    fetch: async (): Promise<Job> => {
      const next = items[calls++];
      if (next === undefined) throw new Error('polled after the job was final');
      if (next instanceof Error) throw next;
      return { status: next };
    },
  };
}

/** Records the delays instead of waiting. */
function recorder() {
  const delays: number[] = [];
  return { delays, wait: async (ms: number) => void delays.push(ms) };
}

const { firstMs: f, factor: g, maxMs, maxAfterErrorMs } = DEFAULT_BACKOFF;

test('polls at once, grows the delay while the status stays, starts short after a change, and returns the final job', async () => {
  const server = answers('pending', 'pending', 'pending', 'ongoing', 'ongoing', 'ongoing', 'completed');
  const timer = recorder();
  const seen: JobStatus[] = [];
  const job = await waitForFinal(server.fetch, { onUpdate: (j) => seen.push(j.status) }, timer.wait);
  assert.equal(job.status, 'completed');
  assert.deepEqual(timer.delays, [f, f * g, f * g * g, f, f * g, f * g * g]);
  assert.deepEqual(seen, ['pending', 'pending', 'pending', 'ongoing', 'ongoing', 'ongoing', 'completed']);
  assert.equal(server.calls(), 7);
});

test('the delay is capped; transient failures back off further and polling goes on; a failed job is returned', async () => {
  const statuses: (JobStatus | Error)[] = Array.from({ length: 12 }, () => 'ongoing');
  const busy = new VirtualAnchorApiError(429, { error: { code: 'too_many_requests', message: 'wait' } });
  const server = answers(...statuses, busy, new VirtualAnchorNetworkError('offline'), busy, 'error');
  const timer = recorder();
  const errors: unknown[] = [];
  const job = await waitForFinal(server.fetch, { onError: (e) => errors.push(e) }, timer.wait);
  assert.equal(job.status, 'error');
  assert.equal(Math.max(...timer.delays.slice(0, 12)), maxMs);
  assert.deepEqual(timer.delays.slice(12), [maxAfterErrorMs, maxAfterErrorMs, maxAfterErrorMs]);
  assert.equal(errors.length, 3);
});

test('an error that is not transient ends the wait; an aborted signal rejects with its reason', async () => {
  const gone = new VirtualAnchorApiError(404, { error: { code: 'not_found', message: 'job not found' } });
  await assert.rejects(waitForFinal(answers('pending', gone).fetch, {}, recorder().wait), gone);
  const controller = new AbortController();
  const server = answers('pending', 'pending', 'pending');
  const waiting = waitForFinal(server.fetch, { signal: controller.signal, onUpdate: () => controller.abort(new Error('stop')) });
  await assert.rejects(waiting, /stop/);
  assert.equal(server.calls(), 1);
});
