import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../src/domain/logger.js';
import type { SeparationJob } from '../../src/core/kinds/separation/record.js';
import { FakeSeparationEngine } from '../helpers/engines.js';
import type { SeparationEngine } from '../../src/domain/engines.js';
import { EngineCrashError } from '../../src/domain/engine-crash.js';
import { pendingSeparation, runnerWith, useRunnerStores } from '../helpers/runner-parts.js';

/**
 * Attempts at the runner: a later attempt takes a job over from a worker that looks dead, the earlier
 * attempt's writes (heartbeat, progress, result, failure) are refused from then on, a job whose worker stopped
 * `maxAttempts` times ends `interrupted`, and an engine's crash is handed back to a retrying queue until the last
 * attempt.
 */
describe('job attempts', { timeout: 60_000 }, () => {
  const parts = useRunnerStores('va-attempts-');

  const runner = (engine: SeparationEngine) =>
    runnerWith({ ...parts, logger: silentLogger }, engine, {
      resultsMs: 60_000,
      heartbeatMs: 50,
      timeout: { baseMs: 30_000, perInputSecondMs: 0 },
      maxAttempts: 3,
      engineStopGraceMs: 5_000,
    });
  const newJob = (patch: Partial<SeparationJob> = {}) => pendingSeparation(parts, patch);

  it('a later attempt takes over; the earlier one is stopped and can write nothing', async () => {
    const job = await newJob();
    const slow = new FakeSeparationEngine();
    const release = slow.hold();
    const fast = new FakeSeparationEngine();
    const first = (await runner(slow)).run(job.uid, { takeOver: true });
    await slow.started(1);
    assert.equal((await parts.store.get(job.uid))?.attempt, 1);
    // The queue hands the job again (its worker looked dead): attempt 2 runs it to the end.
    await (await runner(fast)).run(job.uid, { takeOver: true });
    const done = await parts.store.get(job.uid);
    assert.equal(done?.status, 'completed');
    assert.equal(done?.attempt, 2);
    // Attempt 1's heartbeat saw the attempt move on and aborted its engine; its run ends without a write.
    await first;
    release();
    assert.equal(slow.ended, 1);
    assert.deepEqual(await parts.store.get(job.uid), done);
    assert.equal(await parts.store.patch(job.uid, ['ongoing', 'completed'], { progress: { done: 1, total: 1, unit: 'x' } }, { attempt: 1 }), false);
    assert.equal(await parts.store.transition(job.uid, ['ongoing'], 'completed', {}, { attempt: 1 }), undefined);
  });

  it('at shutdown with a retrying queue, a run is handed back: nothing written, the next attempt takes over', async () => {
    const job = await newJob();
    const engine = new FakeSeparationEngine();
    const release = engine.hold();
    const stopping = await runner(engine);
    const run = stopping.run(job.uid, { takeOver: true });
    await engine.started(1);
    await stopping.abortAll('the service is shutting down', { handBack: true });
    assert.equal(await run, 'handed-back');
    release();
    const left = await parts.store.get(job.uid);
    assert.deepEqual([left?.status, left?.attempt, left?.failure], ['ongoing', 1, undefined]);
    assert.equal(await (await runner(new FakeSeparationEngine())).run(job.uid, { takeOver: true }), 'ended');
    const done = await parts.store.get(job.uid);
    assert.deepEqual([done?.status, done?.attempt], ['completed', 2]);
  });

  it('a delivery that may not take over leaves an ongoing job alone', async () => {
    const job = await newJob({ status: 'ongoing', attempt: 1, heartbeatAt: new Date().toISOString() });
    const engine = new FakeSeparationEngine();
    await (await runner(engine)).run(job.uid, { takeOver: false });
    assert.equal(engine.calls, 0);
    assert.equal((await parts.store.get(job.uid))?.attempt, 1);
  });

  it('with a retrying queue, an engine crash is handed back until the last attempt, which ends with its reason', async () => {
    const job = await newJob();
    const crash = 'the source separation process was killed by SIGKILL before finishing its task';
    let runs = 0;
    const crashing: SeparationEngine = {
      separate: async () => {
        // Wrapped by the engine on the first runs (found in the cause chain), as the pool throws it on the last.
        if (++runs < 3) throw new Error('the engine failed', { cause: new EngineCrashError(crash) });
        throw new EngineCrashError(crash);
      },
    };
    const retried = { takeOver: true, retries: true };
    assert.equal(await (await runner(crashing)).run(job.uid, retried), 'handed-back');
    assert.deepEqual(await parts.store.get(job.uid).then((j) => [j?.status, j?.attempt, j?.failure]), ['ongoing', 1, undefined]);
    assert.equal(await (await runner(crashing)).run(job.uid, retried), 'handed-back');
    // Attempt 3 of maxAttempts 3: not handed back again, the job ends with the crash's reason.
    assert.equal(await (await runner(crashing)).run(job.uid, retried), 'ended');
    const ended = await parts.store.get(job.uid);
    assert.deepEqual([ended?.status, ended?.attempt, runs], ['error', 3, 3]);
    assert.match(ended?.failure?.message ?? '', /killed by SIGKILL/);
  });

  it('never hands back an engine crash on a queue that does not retry, nor an error the engine reports', async () => {
    const once = await newJob();
    const crashing: SeparationEngine = { separate: async () => Promise.reject(new EngineCrashError('the source separation process exited with code 1 before finishing its task')) };
    assert.equal(await (await runner(crashing)).run(once.uid, { takeOver: true }), 'ended');
    assert.equal((await parts.store.get(once.uid))?.status, 'error');
    const reported = await newJob();
    const failing: SeparationEngine = { separate: async () => Promise.reject(new Error('the model refused the input')) };
    assert.equal(await (await runner(failing)).run(reported.uid, { takeOver: true, retries: true }), 'ended');
    assert.equal((await parts.store.get(reported.uid))?.status, 'error');
  });

  it('ends a job in error (interrupted) once maxAttempts runs began', async () => {
    const job = await newJob({ status: 'ongoing', attempt: 3, heartbeatAt: new Date().toISOString() });
    const engine = new FakeSeparationEngine();
    await (await runner(engine)).run(job.uid, { takeOver: true });
    const ended = await parts.store.get(job.uid);
    assert.equal(engine.calls, 0);
    assert.equal(ended?.status, 'error');
    assert.equal(ended?.failure?.code, 'interrupted');
    assert.match(ended?.failure?.message ?? '', /3 times/);
  });
});
