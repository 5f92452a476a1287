/**
 * Issue #20's reproduction, adapted to child processes. With worker threads, one thread running the viseme model
 * in a loop while a second loads the model, runs it once and is terminated killed the whole process within 4–5
 * rounds (`terminate called after throwing an instance of 'Napi::Error'`, exit 134), and every time when the second
 * was terminated mid-run. Here the same happens with the engines' child processes: child A runs the model in a
 * loop; each round a fresh child B loads it, runs it and is killed — idle as a pool ends an idle child, and every
 * third round in the middle of its runs (SIGKILL after an abort it ignores). This process must live through every
 * round, and A must keep running throughout. `ISOLATION_ROUNDS` sets the rounds (default 20; the 200 take
 * about three minutes on two cores: `ISOLATION_ROUNDS=200 node --import tsx --test test/fault/isolation-stress.test.ts`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childModule } from '../../src/inference/workers/child-module.js';
import { TaskPool } from '../../src/inference/workers/task-pool.js';
import type { VisemeChildTask } from './helpers/viseme-child.js';

const ROUNDS = Number(process.env.ISOLATION_ROUNDS ?? 20);
const MODULE = childModule(import.meta.url, 'helpers/viseme-child');

test(`${ROUNDS} rounds of killing a child that loaded onnxruntime, beside one running it, leave this process running`, { timeout: 60_000 + ROUNDS * 5_000 }, async () => {
  assert.ok(MODULE, 'the viseme child module is found');
  const looping = new TaskPool<VisemeChildTask, number, number>({ name: 'viseme loop', module: MODULE, maxWorkers: 1 });
  const stop = new AbortController();
  let loopRuns = 0;
  const loop = looping.run({ mode: 'loop', stopOnAbort: true }, { signal: stop.signal, onEvent: (runs) => (loopRuns = runs) });
  loop.catch(() => undefined); // ends with the abort below
  const killed = { idle: 0, midRun: 0 };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const pool = new TaskPool<VisemeChildTask, number, number>({ name: 'viseme once', module: MODULE, maxWorkers: 1, abortGraceMs: 0 });
      const [pid] = await Promise.all([waitForPid(pool), round % 3 === 0 ? runThenKill(pool) : pool.run({ mode: 'once' })]);
      await pool.close(); // kills the child (the idle one, or what is left of the mid-run one)
      assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `round ${round}: the child ${pid} is gone`);
      if (round % 3 === 0) killed.midRun++;
      else killed.idle++;
    }
    const before = loopRuns;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(loopRuns > before, `the looping child still runs the model (${loopRuns} runs)`);
  } finally {
    stop.abort(new Error('done'));
    await loop.catch(() => undefined);
    await looping.close();
  }
  assert.equal(killed.idle + killed.midRun, ROUNDS);
  assert.ok(loopRuns > ROUNDS, `the looping child ran the model ${loopRuns} times beside ${ROUNDS} killed children`);
});

/** Runs the model in a loop that ignores aborts and, after its first run, aborts it: the child is killed mid-run. */
async function runThenKill(pool: TaskPool<VisemeChildTask, number, number>): Promise<void> {
  const abort = new AbortController();
  const running = pool.run({ mode: 'loop', stopOnAbort: false }, { signal: abort.signal, onEvent: () => abort.abort(new Error('killed mid-run')) });
  await assert.rejects(running, /killed mid-run/);
}

/** The pid of the pool's child, once it has started. */
async function waitForPid(pool: TaskPool<VisemeChildTask, number, number>): Promise<number> {
  for (;;) {
    const [pid] = pool.pids;
    if (pid !== undefined) return pid;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
