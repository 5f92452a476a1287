/**
 * Event-loop bench: how long the host's event loop is blocked while the service runs jobs. An Express app with the
 * real built-in engines (lip-sync, separation, avatar assets; in-memory job store, a temp data dir) runs in this
 * process; a child process (bench/lib/job-client.ts) serves the inputs and posts BENCH_EVENT_LOOP_JOBS (default 20)
 * jobs at once — avatar videos of BENCH_EVENT_LOOP_SECONDS (default 3) s of espeak speech and separations of one
 * second more, alternating, from four keys — then polls them until all are final. `monitorEventLoopDelay` with a
 * 1 ms resolution samples this process meanwhile: the values are the intervals between its 1 ms timer's ticks, so
 * an idle loop reads about 1 ms and a block of N ms reads about N + 1 ms. First an idle baseline
 * (BENCH_EVENT_LOOP_IDLE_MS, default 3000, after the avatars are ready), then BENCH_EVENT_LOOP_ROUNDS (default 3)
 * batches, one line each (the first includes the engines' cold start: worker threads, model loads), and a summary
 * line with the medians. Target (issue #24): p99 ≤ 10 ms and max ≤ 50 ms per batch. Each batch line also says how many
 * processes were spawned and how many engine children forked from the host's main thread and how long those calls
 * blocked it (either forks the host: about 9 ms per 100 MB of its memory), and the host's memory after the batch. A
 * last batch runs under V8's sampling profiler (`BENCH_EVENT_LOOP_STACKS=0` leaves it out) and its `stacks` line
 * names what held the host's thread in each stretch of at least BENCH_EVENT_LOOP_LONG_TASK_MS (default 5) ms without
 * a pause (see lib/long-tasks.ts); `BENCH_EVENT_LOOP_STACKS=cold` profiles the first batch instead (the engines' cold
 * start; its line then also says `profiled: true`, since sampling costs the loop a little);
 * BENCH_EVENT_LOOP_PROFILE_FILE names a file to keep that profile in (a .cpuprofile for Chrome's DevTools).
 */
import type * as ChildProcesses from 'node:child_process';
import { execFile, fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import { createVirtualAnchor, virtualAnchor } from '../src/index.js';
import { avatarUid } from '../src/core/avatars/avatar-uid.js';
import { loadAvatarDefinitions } from '../src/inference/avatar/catalogue-definitions.js';
import { resolveMediaBinaries } from '../src/inference/media/index.js';
import type { JobBatch, JobBatchResult, JobPlan } from './lib/job-client.js';
import type { BenchSection } from './lib/settings.js';
import { median } from './lib/stats.js';
import { makeSpeech } from './lipsync/speech.js';
import { profiled } from './lib/cpu-breakdown.js';
import { longTasks } from './lib/long-tasks.js';

const run = promisify(execFile);
const JOBS = Math.max(1, Number(process.env.BENCH_EVENT_LOOP_JOBS ?? 20));
const ROUNDS = Math.max(1, Number(process.env.BENCH_EVENT_LOOP_ROUNDS ?? 3));
const SECONDS = Math.max(1, Number(process.env.BENCH_EVENT_LOOP_SECONDS ?? 3));
const IDLE_MS = Math.max(100, Number(process.env.BENCH_EVENT_LOOP_IDLE_MS ?? 3000));
const KEYS = ['bench-loop-a', 'bench-loop-b', 'bench-loop-c', 'bench-loop-d'];
const RESOLUTION_MS = 1;
/**
 * Which batch runs under the profiler to report the host thread's long stretches (`BENCH_EVENT_LOOP_STACKS`): `1`
 * (the default) an extra last one, `cold` the first, `0` none.
 */
const STACKS: 'last' | 'cold' | 'none' = process.env.BENCH_EVENT_LOOP_STACKS === '0' ? 'none' : process.env.BENCH_EVENT_LOOP_STACKS === 'cold' ? 'cold' : 'last';
/** The shortest stretch it reports (ms). */
const LONG_TASK_MS = Math.max(1, Number(process.env.BENCH_EVENT_LOOP_LONG_TASK_MS ?? 5));
/** The profiler's sampling interval there (µs). */
const SAMPLE_MICROS = 250;
const CLIENT = fileURLToPath(new URL('./lib/job-client.ts', import.meta.url));

/** p50/p99/max of a histogram in ms (its values are in ns). */
function delays(h: IntervalHistogram): { p50Ms: number; p99Ms: number; maxMs: number; samples: number } {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return { p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count };
}

/**
 * Times every `child_process.spawn` and `fork` made on this (the host's main) thread — `import { spawn }` included,
 * worker threads have their own copy of the module: either forks the whole host, which blocks the caller for a time
 * that grows with the host's memory (`fork` calls the module's own `spawn`, not the export, so both are wrapped).
 * Returns the durations recorded since the last call, per function.
 */
function timeMainThreadSpawns(): () => { spawn: number[]; fork: number[] } {
  const childProcesses = createRequire(import.meta.url)('node:child_process') as typeof ChildProcesses;
  let times = { spawn: [] as number[], fork: [] as number[] };
  const timed = <F extends (...args: never[]) => unknown>(original: F, into: 'spawn' | 'fork'): F =>
    function (this: unknown, ...args: Parameters<F>) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        times[into].push(performance.now() - started);
      }
    } as F;
  childProcesses.spawn = timed(childProcesses.spawn, 'spawn');
  childProcesses.fork = timed(childProcesses.fork, 'fork');
  syncBuiltinESMExports();
  return () => {
    const taken = times;
    times = { spawn: [], fork: [] };
    return taken;
  };
}

/** Samples this process's event-loop delay while `work` runs. */
async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; loop: ReturnType<typeof delays> }> {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  try {
    const result = await work();
    return { result, loop: delays(h) };
  } finally {
    h.disable();
  }
}

export const eventLoopBench: BenchSection = async (_settings, emit) => {
  const spawns = timeMainThreadSpawns();
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-loop-'));
  // The installer packages' static ffmpeg/ffprobe (as the tests use): they start in ~10 ms, the system's in 100+.
  const binaries = await resolveMediaBinaries({ env: {} });
  const instance = createVirtualAnchor({
    apiKeys: KEYS,
    dataDir: join(dir, 'data'),
    logger: false,
    allowPrivateUrls: true,
    ffmpegPath: binaries.ffmpegPath,
    ffprobePath: binaries.ffprobePath,
  });
  const server = createServer(express().use(virtualAnchor(instance)));
  const client = fork(CLIENT, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const batch = (message: JobBatch) =>
    new Promise<JobBatchResult>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the job client exited with code ${code}`));
      client.once('exit', onExit);
      client.once('message', (answer: JobBatchResult | { error: string }) => {
        client.off('exit', onExit);
        if ('error' in answer) reject(new Error(answer.error));
        else resolve(answer);
      });
      client.send(message);
    });
  try {
    const speech = await makeSpeech(dir, SECONDS, binaries.ffmpegPath);
    const longer = await makeSpeech(dir, SECONDS + 1, binaries.ffmpegPath);
    const mp3 = join(dir, 'separation-input.mp3');
    await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-i', longer, '-ar', '44100', '-ac', '2', '-b:a', '128k', mp3]);
    const [avatar] = await loadAvatarDefinitions();
    if (!avatar) throw new Error('no avatar definitions');
    await instance.ready();
    await instance.avatarsReady();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const jobs: JobPlan[] = Array.from({ length: JOBS }, (_, i) =>
      i % 2 === 0
        ? { kind: 'avatarVideo', key: KEYS[Math.floor(i / 2) % KEYS.length]!, audio: speech, avatarId: avatarUid(avatar.id) }
        : { kind: 'separation', key: KEYS[Math.floor(i / 2) % KEYS.length]!, audio: mp3 },
    );

    /** Runs a batch under V8's sampling profiler and emits the `stacks` line of its long stretches. */
    const stacksOf = async <T extends { loop: ReturnType<typeof delays> }>(work: () => Promise<T>): Promise<T> => {
      const { result, profile } = await profiled(SAMPLE_MICROS, work);
      if (process.env.BENCH_EVENT_LOOP_PROFILE_FILE) await writeFile(process.env.BENCH_EVENT_LOOP_PROFILE_FILE, JSON.stringify({ ...profile, startTime: 0, endTime: 0 }));
      emit({ bench: 'event-loop', phase: 'stacks', batch: STACKS === 'cold' ? 'cold' : 'extra', minMs: LONG_TASK_MS, sampleMicros: SAMPLE_MICROS, ...result.loop, ...longTasks(profile, SAMPLE_MICROS, LONG_TASK_MS) });
      return result;
    };

    spawns();
    const idle = await sampled(() => new Promise((resolve) => setTimeout(resolve, IDLE_MS)));
    emit({ bench: 'event-loop', phase: 'idle', durationMs: IDLE_MS, resolutionMs: RESOLUTION_MS, ...idle.loop });
    const rounds: { p50Ms: number; p99Ms: number; maxMs: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const runBatch = () => sampled(() => batch({ origin, jobs, pollMs: 250, timeoutMs: 600_000 }));
      const coldProfile = STACKS === 'cold' && round === 1;
      const { result, loop } = coldProfile ? await stacksOf(runBatch) : await runBatch();
      rounds.push(loop);
      const started = spawns();
      const spawned = started.spawn.sort((a, b) => a - b);
      const forked = started.fork.sort((a, b) => a - b);
      const ms = (n: number | undefined) => (n === undefined ? null : Math.round(n * 10) / 10);
      const count = (status: string) => result.statuses.filter((s) => s === status).length;
      emit({
        bench: 'event-loop',
        phase: 'jobs',
        round,
        jobs: JOBS,
        avatarVideos: jobs.filter((j) => j.kind === 'avatarVideo').length,
        separations: jobs.filter((j) => j.kind === 'separation').length,
        audioSeconds: SECONDS,
        resolutionMs: RESOLUTION_MS,
        ...loop,
        completed: count('completed'),
        errors: count('error'),
        timeouts: count('timeout'),
        ...(result.failures.length > 0 ? { failures: result.failures.slice(0, 3) } : {}),
        elapsedMs: result.elapsedMs,
        clientPostP50Ms: result.postP50Ms,
        clientPostMaxMs: result.postMaxMs,
        clientGetP50Ms: result.getP50Ms,
        clientGetP99Ms: result.getP99Ms,
        clientGetMaxMs: result.getMaxMs,
        clientGets: result.gets,
        mainThreadSpawns: spawned.length,
        mainThreadSpawnP50Ms: ms(spawned[Math.floor(spawned.length / 2)]),
        mainThreadSpawnMaxMs: ms(spawned.at(-1)),
        // The engines' children (node processes with an IPC channel), started on the host's thread when a pool has
        // none idle.
        mainThreadForks: forked.length,
        mainThreadForkMaxMs: ms(forked.at(-1)),
        hostRssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
        ...(coldProfile ? { profiled: true } : {}),
      });
    }
    if (STACKS === 'last') {
      // One more batch under V8's sampling profiler (not counted above: sampling costs the loop a little), to say
      // what holds the host's thread in its long stretches.
      await stacksOf(() => sampled(() => batch({ origin, jobs, pollMs: 250, timeoutMs: 600_000 })));
    }
    const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
    const summary = { p50Ms: med((r) => r.p50Ms), p99Ms: med((r) => r.p99Ms), maxMs: med((r) => r.maxMs) };
    emit({
      bench: 'event-loop',
      phase: 'summary',
      rounds: ROUNDS,
      idleP99Ms: idle.loop.p99Ms,
      idleMaxMs: idle.loop.maxMs,
      medianP50Ms: summary.p50Ms,
      medianP99Ms: summary.p99Ms,
      medianMaxMs: summary.maxMs,
      p99Runs: rounds.map((r) => r.p99Ms),
      maxRuns: rounds.map((r) => r.maxMs),
      target: 'p99Ms <= 10 && maxMs <= 50',
      met: summary.p99Ms <= 10 && summary.maxMs <= 50,
    });
  } finally {
    if (client.connected) client.disconnect();
    server.closeAllConnections();
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    await instance.close();
    await rm(dir, { recursive: true, force: true });
  }
};
