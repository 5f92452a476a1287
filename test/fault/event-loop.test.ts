/**
 * Issue #10 item 9: no CPU-heavy step of the built-in engines runs on the host's main thread. The lip-sync analysis
 * (log-mel features, viseme model) and the separation compute (STFT, mask, iSTFT) must run in child processes: the
 * tests count the calls of their hot functions in this process, which a child's own copy of the modules never
 * reaches, while real jobs run, and the ffmpeg processes they spawn (each spawn forks the host). Aborts must stop a
 * child's task promptly, and a crashing child (issue #20: native crashes included) must fail its task, never the host.
 */
import assert from 'node:assert/strict';
import type * as ChildProcesses from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import type { EngineContext } from '../../src/domain/engines.js';
import { loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { LogMelExtractor } from '../../src/inference/lipsync/features.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { MediaProcessError, probeMedia } from '../../src/inference/media/index.js';
import { runMedia } from '../../src/inference/media/run-media.js';
import { OnnxSeparationEngine } from '../../src/inference/separation/engine.js';
import { FrameTransform } from '../../src/inference/separation/stft.js';
import { childModule } from '../../src/inference/workers/child-module.js';
import { descendants, engineChildren, ffmpegDescendants, type ProcessInfo } from '../helpers/processes.js';
import { waitFor } from '../helpers/checks.js';
import { TaskPool } from '../../src/inference/workers/task-pool.js';
import { BINARIES, ffmpeg } from '../helpers/media.js';
import type { FaultyTask } from './helpers/faulty-worker.js';

const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
const silent = { info: () => undefined, warn: () => undefined };
let dir: string;

/** Calls of the engines' hot loops, and processes spawned (a fork of the whole host: ~9 ms per 100 MB of RSS), on this thread. */
const onMain = { features: 0, stft: 0, spawns: 0 };
const originalPush = LogMelExtractor.prototype.push;
const originalAnalyze = FrameTransform.prototype.analyze;
const childProcesses = createRequire(import.meta.url)('node:child_process') as typeof ChildProcesses;
const originalSpawn = childProcesses.spawn;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-fault-loop-'));
  LogMelExtractor.prototype.push = function (this: LogMelExtractor, samples) {
    onMain.features++;
    return originalPush.call(this, samples);
  };
  FrameTransform.prototype.analyze = function (this: FrameTransform, ...args) {
    onMain.stft++;
    return originalAnalyze.apply(this, args);
  };
  // `import { spawn } from 'node:child_process'` sees this too (worker threads have their own copy of the module).
  childProcesses.spawn = function (this: unknown, ...args: Parameters<typeof originalSpawn>) {
    onMain.spawns++;
    return originalSpawn.apply(this, args);
  } as typeof originalSpawn;
  syncBuiltinESMExports();
  // A vowel-like buzz with syllable-rate loudness changes, stereo 44.1 kHz (resampled for both engines).
  const buzz = 'aevalsrc=(0.5+0.5*sin(2*PI*4*t))*(sin(2*PI*180*t)+0.4*sin(2*PI*720*t)):s=44100:d=';
  await Promise.all([
    ffmpeg(['-f', 'lavfi', '-i', `${buzz}2`, '-ac', '2', join(dir, 'short.wav')]),
    ffmpeg(['-f', 'lavfi', '-i', `${buzz}120`, '-ac', '2', join(dir, 'long.wav')]),
  ]);
});

after(async () => {
  LogMelExtractor.prototype.push = originalPush;
  FrameTransform.prototype.analyze = originalAnalyze;
  childProcesses.spawn = originalSpawn;
  syncBuiltinESMExports();
  await rm(dir, { recursive: true, force: true });
});

function context(signal = new AbortController().signal): EngineContext {
  return { signal, onProgress: () => undefined, workDir: dir };
}

test('the spies see the hot loops when an engine is told to run on the main thread', async () => {
  // Proves the counters below can fail: the same functions, called on this thread, are counted.
  const before = { ...onMain };
  await new OnnxMouthAnalyzer({ binaries, thread: 'main' }).analyze(join(dir, 'short.wav'), 25);
  await new OnnxSeparationEngine({ binaries, logger: silent, thread: 'main' }).separate(
    { audioPath: join(dir, 'short.wav'), durationSec: 2, speechPath: join(dir, 'main-s.wav'), ambiencePath: join(dir, 'main-a.wav') },
    context(),
  );
  assert.ok(onMain.features > before.features, 'log-mel features computed on the main thread were counted');
  assert.ok(onMain.stft > before.stft, 'STFT frames computed on the main thread were counted');
  assert.ok(onMain.spawns > before.spawns, 'ffmpeg processes spawned from the main thread were counted');
});

test('a lip-sync video and a separation with the default engines compute and spawn nothing on the main thread', async () => {
  const [avatar] = await loadAvatarDefinitions();
  assert.ok(avatar);
  const before = { ...onMain };
  const videoPath = join(dir, 'video.mp4');
  const [, separated] = await Promise.all([
    new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries }).render(
      { audioPath: join(dir, 'short.wav'), durationSec: 2, avatar, outputPath: videoPath },
      context(),
    ),
    new OnnxSeparationEngine({ binaries, logger: silent }).separate(
      { audioPath: join(dir, 'short.wav'), durationSec: 2, speechPath: join(dir, 'speech.wav'), ambiencePath: join(dir, 'ambience.wav') },
      context(),
    ),
  ]);
  const during = { ...onMain };
  assert.deepEqual(separated, { contentType: 'audio/wav', extension: 'wav' });
  // The jobs did their work: a 2 s video and two 2 s stems exist...
  const video = await probeMedia(videoPath, binaries);
  assert.ok(video.video && Math.abs(video.durationSec - 2) < 0.2, `video of ${video.durationSec} s`);
  for (const stem of ['speech.wav', 'ambience.wav']) {
    const probe = await probeMedia(join(dir, stem), binaries);
    assert.ok(Math.abs(probe.durationSec - 2) < 0.05, `${stem} lasts ${probe.durationSec} s`);
  }
  // ...and none of it on this thread.
  assert.deepEqual(during, before, 'no log-mel feature, no STFT frame and no ffmpeg process came from the main thread');
});

/** Nice value, parent pid and state of a thread (`/proc/<pid>/task/<tid>`) or process (`/proc/<pid>`), from its stat line. */
async function schedOf(path: string): Promise<{ nice: number; ppid: number; state: string } | undefined> {
  const line = await readFile(join(path, 'stat'), 'utf8').catch(() => undefined);
  if (!line) return undefined; // ended meanwhile
  const fields = line.slice(line.lastIndexOf(')') + 2).split(' '); // from field 3 (state) on
  return { state: fields[0]!, ppid: Number(fields[1]), nice: Number(fields[16]) };
}

test('engine child processes and the ffmpeg processes they start run at a lower priority than the event loop', async () => {
  const hostGroupBefore = await autogroupOf('self');
  const controller = new AbortController();
  const run = new OnnxSeparationEngine({ binaries, logger: silent }).separate(
    { audioPath: join(dir, 'long.wav'), durationSec: 120, speechPath: join(dir, 'nice-s.wav'), ambiencePath: join(dir, 'nice-a.wav') },
    context(controller.signal),
  );
  run.catch(() => undefined); // aborted below; the outcome is not what this test checks
  let engines: ProcessInfo[] = [];
  let ffmpegs: ProcessInfo[] = [];
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline && ffmpegs.length === 0) {
    // The separation child (a pooled one may have started in an earlier test) and the ffmpeg processes it started.
    engines = await engineChildren('source separation');
    ffmpegs = (await Promise.all(engines.map((engine) => descendants(engine.pid)))).flat().filter((p) => p.comm.startsWith('ffmpeg'));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // Read while they run (an aborted ffmpeg is gone).
  const groups = await Promise.all([...engines, ...ffmpegs].map(async (p) => ({ p, group: await autogroupOf(String(p.pid)) })));
  controller.abort(new Error('stopped by test'));
  await run.catch(() => undefined);
  const tids = await readdir('/proc/self/task');
  const threads = (await Promise.all(tids.map(async (tid) => (await schedOf(`/proc/self/task/${tid}`))?.nice))).filter((n): n is number => n !== undefined);
  assert.ok(threads.every((nice) => nice === 0), `every thread of the host keeps its priority (threads: ${threads.join(', ')})`);
  assert.ok(engines.length > 0 && engines.every((p) => p.nice === 10), `the separation child runs at nice 10 (${JSON.stringify(engines)})`);
  assert.ok(ffmpegs.length > 0, 'the separation child started ffmpeg');
  assert.ok(ffmpegs.every((p) => p.nice === 10), `ffmpeg processes inherit nice 10 (${JSON.stringify(ffmpegs)})`);
  // Where the kernel groups processes by session (autogroup), a child's session is its own group, weighed by the
  // group's nice, not its threads': that group is lowered too, and the host's is left as it was.
  const host = await autogroupOf('self');
  if (host !== undefined) {
    assert.equal(host.nice, hostGroupBefore?.nice, 'the host keeps its scheduling group\'s priority');
    for (const { p, group } of groups) {
      assert.ok(group && group.nice === 10 && group.name !== host.name, `${p.comm} ${p.pid} runs in a group of its own at nice 10 (${JSON.stringify(group)}; host ${JSON.stringify(host)})`);
    }
  }
});

/** The scheduling group (autogroup) of process `pid` and its nice value; none where the kernel has no autogroup. */
async function autogroupOf(pid: string): Promise<{ name: string; nice: number } | undefined> {
  const line = await readFile(`/proc/${pid}/autogroup`, 'utf8').catch(() => undefined);
  const match = line === undefined ? null : /^(\S+) nice (-?\d+)/.exec(line);
  return match ? { name: match[1]!, nice: Number(match[2]) } : undefined;
}

test('aborting a separation stops its child promptly and leaves no stems', async () => {
  const controller = new AbortController();
  const speechPath = join(dir, 'abort-s.wav');
  const ambiencePath = join(dir, 'abort-a.wav');
  let progressed!: () => void;
  const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
  const run = new OnnxSeparationEngine({ binaries, logger: silent }).separate(
    { audioPath: join(dir, 'long.wav'), durationSec: 120, speechPath, ambiencePath },
    { ...context(controller.signal), onProgress: () => progressed() },
  );
  run.catch(() => undefined); // awaited below, after the abort
  await firstProgress; // the worker is separating (120 s of audio takes several seconds)
  const abortedAt = performance.now();
  controller.abort(new Error('stopped by the test'));
  await assert.rejects(run, /stopped by the test/);
  // The child gets TASK_ABORT_GRACE_MS (1 s) before it is killed; a wide margin for a loaded machine.
  assert.ok(performance.now() - abortedAt < 5_000, `stopped ${Math.round(performance.now() - abortedAt)} ms after the abort`);
  await assert.rejects(stat(speechPath));
  await assert.rejects(stat(ambiencePath));
});

test('aborting the lip-sync analysis rejects it promptly with the abort reason', async () => {
  const controller = new AbortController();
  const run = new OnnxMouthAnalyzer({ binaries }).analyze(join(dir, 'long.wav'), 25, controller.signal);
  run.catch(() => undefined); // awaited below
  setTimeout(() => controller.abort(new Error('analysis stopped')), 50);
  const started = performance.now();
  await assert.rejects(run, /analysis stopped/);
  assert.ok(performance.now() - started < 5_000);
});

test('a child that crashes (an uncaught error, an exit, SIGSEGV, SIGABRT) or hangs fails its task, never the host; the pool recovers', async () => {
  const module = childModule(import.meta.url, 'helpers/faulty-worker');
  assert.ok(module, 'the faulty worker module is found');
  const pool = new TaskPool<FaultyTask, string>({ name: 'faulty', module, maxWorkers: 1, abortGraceMs: 1_000 });
  try {
    assert.equal(await pool.run({ mode: 'echo', value: 'first' }), 'first');
    await assert.rejects(pool.run({ mode: 'throw-later' }), /the faulty process failed: boom from the worker/);
    await assert.rejects(pool.run({ mode: 'exit' }), /the faulty process exited \(code 7\)/);
    // A crash in native code (SIGSEGV; glibc's heap-corruption abort is SIGABRT) ends the child, not this process.
    await assert.rejects(pool.run({ mode: 'segfault' }), /the faulty process was killed by SIGSEGV before finishing its task/);
    await assert.rejects(pool.run({ mode: 'abort' }), /the faulty process was killed by SIGABRT before finishing its task/);
    // A task that ignores its abort: its child is killed after the grace period.
    const hung = new AbortController();
    const hanging = pool.run({ mode: 'hang' }, { signal: hung.signal });
    setTimeout(() => hung.abort(new Error('deadline')), 50);
    await assert.rejects(hanging, /deadline/);
    // A task that honours its abort leaves its child in the pool (started first: a child still loading its
    // modules when the grace period ends is killed too).
    assert.equal(await pool.run({ mode: 'echo', value: 'warm' }), 'warm');
    const waiting = new AbortController();
    const waited = pool.run({ mode: 'wait' }, { signal: waiting.signal });
    setTimeout(() => waiting.abort(new Error('cancelled')), 50);
    await assert.rejects(waited, /cancelled/);
    assert.equal(pool.size, 1);
    // A task queued behind a busy child (maxWorkers 1) and aborted while waiting never runs.
    const busy = new AbortController();
    const first = pool.run({ mode: 'wait' }, { signal: busy.signal });
    const queued = new AbortController();
    const second = pool.run({ mode: 'echo', value: 'never' }, { signal: queued.signal });
    queued.abort(new Error('gave up waiting'));
    await assert.rejects(second, /gave up waiting/);
    busy.abort(new Error('done'));
    await assert.rejects(first, /done/);
    // After all that, the pool still works.
    assert.equal(await pool.run({ mode: 'echo', value: 'again' }), 'again');
  } finally {
    await pool.close();
  }
  assert.equal(pool.size, 0);
});

test('runMedia runs a command from a child process: its output, and MediaProcessErrors as spawnMedia gives them', async () => {
  const before = onMain.spawns;
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', join(dir, 'short.wav')];
  const out = JSON.parse(await runMedia('ffprobe', binaries.ffprobePath, args)) as { format: { duration: string } };
  assert.ok(Math.abs(Number(out.format.duration) - 2) < 0.01);
  assert.equal(onMain.spawns, before, 'the ffprobe process was not spawned from the main thread');
  // A file ffprobe cannot read: a MediaProcessError without a cause (the file's fault)...
  const unreadable = await runMedia('ffprobe', binaries.ffprobePath, ['-v', 'error', join(dir, 'missing.wav')]).catch((e: unknown) => e);
  assert.ok(unreadable instanceof MediaProcessError, String(unreadable));
  assert.equal(unreadable.cause, undefined);
  assert.match(unreadable.message, /ffprobe exited with code 1/);
  // ...a binary that does not start: one with the cause (not the file's fault).
  const missing = await runMedia('ffprobe', join(dir, 'no-such-ffprobe'), ['-version']).catch((e: unknown) => e);
  assert.ok(missing instanceof MediaProcessError && missing.cause !== undefined, String(missing));
  assert.match(missing.message, /ENOENT/);
});

test('a pool whose child cannot be started fails the task (also one waiting for it) instead of leaving it pending; a closed pool starts nothing', async () => {
  const missing = { path: join(dir, 'no-such-module.js'), execArgv: [] };
  const broken = new TaskPool<FaultyTask, string>({ name: 'missing', module: missing, maxWorkers: 1 });
  const first = assert.rejects(broken.run({ mode: 'echo', value: 'never' }), /the missing process (exited|failed)/);
  const waiting = assert.rejects(broken.run({ mode: 'echo', value: 'never either' }), /the missing process (exited|failed)/);
  await first;
  await waiting;
  await broken.close();
  const module = childModule(import.meta.url, 'helpers/faulty-worker');
  assert.ok(module);
  const pool = new TaskPool<FaultyTask, string>({ name: 'faulty', module, maxWorkers: 1 });
  const running = assert.rejects(pool.run({ mode: 'hang' }), /the faulty process was killed by SIGKILL/);
  const queued = assert.rejects(pool.run({ mode: 'echo', value: 'queued' }), /the faulty pool is closed/);
  await new Promise((resolve) => setTimeout(resolve, 200));
  await pool.close();
  await running;
  await queued;
  await assert.rejects(pool.run({ mode: 'echo', value: 'late' }), /the faulty pool is closed/);
  assert.equal(pool.size, 0, 'no child was started after close');
});

test('a child killed mid-task takes the ffmpeg processes it started with it (its process group)', async () => {
  const module = childModule(import.meta.url, 'helpers/faulty-worker');
  assert.ok(module);
  const pool = new TaskPool<FaultyTask, string>({ name: 'faulty', module, maxWorkers: 1, abortGraceMs: 0 });
  try {
    const stop = new AbortController();
    const running = pool.run({ mode: 'spawn-and-hang', ffmpegPath: binaries.ffmpegPath }, { signal: stop.signal });
    const ffmpeg = await waitFor('the child to start ffmpeg', async () => (await ffmpegDescendants())[0], 20_000, 50);
    const [child] = pool.pids;
    assert.ok(child !== undefined);
    process.kill(child, 'SIGSEGV');
    await assert.rejects(running, /killed by SIGSEGV/);
    await waitFor('the orphaned ffmpeg to be gone', async () => (isAlive(ffmpeg) ? undefined : true), 5_000, 50);
  } finally {
    await pool.close();
  }
});

/** Whether process `pid` still exists (a zombie counts as gone). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
}
