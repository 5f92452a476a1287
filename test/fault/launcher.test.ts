/**
 * Engine children are forked by the launcher, a small process of the host's own (src/inference/workers/relayed-child.ts),
 * not by the host: a fork copies the caller's page tables and stops its event loop for a time that grows with its
 * memory. The host forks the launcher once; the children are the launcher's; their messages, crashes and kills
 * behave as before; and when the launcher itself dies, the task it relayed fails, its children go with it, and the
 * next task starts a new launcher.
 */
import assert from 'node:assert/strict';
import type * as ChildProcesses from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { after, test } from 'node:test';
import { EngineCrashError } from '../../src/domain/engine-crash.js';
import { childModule } from '../../src/inference/workers/child-module.js';
import { TaskPool } from '../../src/inference/workers/task-pool.js';
import { processInfo } from '../helpers/processes.js';
import type { FaultyTask } from './helpers/faulty-worker.js';

const MODULE = childModule(import.meta.url, 'helpers/faulty-worker');
const pools: TaskPool<FaultyTask, string>[] = [];
after(() => Promise.all(pools.map((pool) => pool.close())));

/** A pool of `size` faulty-worker children. */
function pool(size = 1): TaskPool<FaultyTask, string> {
  assert.ok(MODULE, 'the faulty-worker module is found');
  const made = new TaskPool<FaultyTask, string>({ name: 'launcher test', module: MODULE, maxWorkers: size, abortGraceMs: 0 });
  pools.push(made);
  return made;
}

/** Counts `child_process.fork` calls made by this process (its main thread) while `work` runs. */
async function forksDuring(work: () => Promise<unknown>): Promise<number> {
  const childProcesses = createRequire(import.meta.url)('node:child_process') as typeof ChildProcesses;
  const original = childProcesses.fork;
  let forks = 0;
  childProcesses.fork = function (this: unknown, ...args: Parameters<typeof original>) {
    forks++;
    return original.apply(this, args);
  } as typeof original;
  syncBuiltinESMExports();
  try {
    await work();
    return forks;
  } finally {
    childProcesses.fork = original;
    syncBuiltinESMExports();
  }
}

test("engine children are the launcher's, and the host forks only the launcher", async () => {
  const four = pool(4);
  let launcherPid: number | undefined;
  const forks = await forksDuring(async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((value) => four.run({ mode: 'echo', value })));
    assert.deepEqual(answers, ['a', 'b', 'c', 'd']);
  });
  assert.equal(four.pids.length, 4, 'four children run');
  for (const pid of four.pids) {
    const child = processInfo(pid);
    const launcher = child && processInfo(child.ppid);
    assert.ok(launcher, `child ${pid} and its parent are alive`);
    assert.equal(launcher.cmdline, 'virtual-anchor launcher', `child ${pid}'s parent is the launcher`);
    assert.equal(launcher.ppid, process.pid, 'the launcher is this process\'s child');
    launcherPid ??= launcher.pid;
    assert.equal(launcher.pid, launcherPid, 'one launcher for all children');
  }
  assert.ok(forks <= 1, `this process forked ${forks} processes for four children (the launcher at most)`);
  // Forking more children later costs the host nothing either.
  const more = pool(2);
  const later = await forksDuring(() => Promise.all([more.run({ mode: 'echo', value: 'e' }), more.run({ mode: 'echo', value: 'f' })]));
  assert.equal(later, 0, 'no fork of the host once the launcher runs');
});

test('crashes and kills of a relayed child fail its task only, as before', async () => {
  const one = pool();
  await assert.rejects(one.run({ mode: 'exit' }), (error: Error) => error instanceof EngineCrashError && /exited \(code 7\)/.test(error.message));
  await assert.rejects(one.run({ mode: 'segfault' }), (error: Error) => error instanceof EngineCrashError && /SIGSEGV/.test(error.message));
  // An uncaught error's report is relayed before the child's exit: the task fails with the child's own error.
  await assert.rejects(one.run({ mode: 'throw-later' }), /boom from the worker/);
  const controller = new AbortController();
  const hung = one.run({ mode: 'hang' }, { signal: controller.signal });
  const [pid] = await waitFor(() => (one.pids.length > 0 ? one.pids : undefined));
  controller.abort(new Error('stopped by the test'));
  await assert.rejects(hung, /stopped by the test/);
  await waitFor(() => (processInfo(pid!) === undefined ? true : undefined));
  assert.equal(await one.run({ mode: 'echo', value: 'after' }), 'after', 'the pool recovers');
});

test('a launcher that dies fails the task it relayed, takes its children along, and the next task starts a new one', async () => {
  const one = pool();
  const running = one.run({ mode: 'hang' });
  const [pid] = await waitFor(() => (one.pids.length > 0 ? one.pids : undefined));
  const launcher = processInfo(pid!)!.ppid;
  assert.equal(processInfo(launcher)?.cmdline, 'virtual-anchor launcher');
  process.kill(launcher, 'SIGKILL');
  await assert.rejects(running, (error: Error) => error instanceof EngineCrashError && /killed by SIGKILL/.test(error.message));
  await waitFor(() => (processInfo(pid!) === undefined ? true : undefined));
  assert.equal(await one.run({ mode: 'echo', value: 'again' }), 'again');
  const [next] = one.pids;
  const nextLauncher = processInfo(next!)!.ppid;
  assert.notEqual(nextLauncher, launcher, 'a new launcher');
  assert.equal(processInfo(nextLauncher)?.cmdline, 'virtual-anchor launcher');
});

/** Polls `probe` every 20 ms until it gives a value (5 s at most). */
async function waitFor<T>(probe: () => T | undefined): Promise<T> {
  for (let tries = 0; tries < 250; tries++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out waiting');
}
