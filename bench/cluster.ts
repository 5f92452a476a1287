/**
 * `npm run bench cluster`: the scale-out topology on this machine, with the real built-in engines, BullMQ on the
 * shared Redis (a namespace per scenario) and an S3 server (s3rver) started here; every process is the example
 * server (`examples/express-server.ts`) configured by the operator variables, with a data dir of its own (they
 * share no disk).
 *
 * One fixed batch (`BENCH_CLUSTER_JOBS` avatar videos, default 12, of `BENCH_CLUSTER_SPEECH_SEC` seconds of speech,
 * default 30, from `BENCH_CLUSTER_KEYS` keys, default 4) runs in each scenario:
 *
 * - `all`: one process (`VIRTUAL_ANCHOR_ROLE=all`) serves the API and runs the jobs;
 * - `api+1worker`, `api+2workers`: an `api` process and separate `worker` processes.
 *
 * Lines: per scenario the batch's wall time, and the API's latency of `GET /v2/2davatar/:id` (one request at a
 * time) when idle and while the workers are saturated; then `kill`: with two workers, one is SIGKILLed while it
 * runs a job, and the line gives the seconds from the kill to the completion elsewhere of each job it was running
 * (found by their `attempt` going up in the job records).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@redis/client';
import { startS3Server, type S3TestServer } from '../test/helpers/s3-server.js';
import { freePort } from '../test/helpers/redis-server.js';
import type { BenchSection } from './lib/settings.js';
import { median } from './lib/stats.js';

const exec = promisify(execFile);
const root = fileURLToPath(new URL('../', import.meta.url));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function whole(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number`);
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

interface Node {
  role: string;
  port: number;
  child: ChildProcess;
  dataDir: string;
}

/** Starts the example server as one process of the cluster and waits until its `/readyz` answers 200. */
async function startNode(role: 'all' | 'api' | 'worker', env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), `va-bench-${role}-`));
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples/express-server.ts')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), VIRTUAL_ANCHOR_ROLE: role, VIRTUAL_ANCHOR_DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${role} process exited (${child.exitCode})`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ready) return { role, port, child, dataDir };
    if (Date.now() > deadline) throw new Error(`the ${role} process was not ready within 90 s`);
    await sleep(250);
  }
}

async function stopNode(node: Node, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) {
    const exited = new Promise((resolve) => node.child.once('exit', resolve));
    node.child.kill(signal);
    await exited;
  }
  await rm(node.dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

async function api<T>(base: string, path: string, key: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${base}${path}`, { ...init, headers: { key, ...(init.headers as Record<string, string>) } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Latencies (ms) of `GET /v2/2davatar/:id`, one request at a time, until `stop()` returns true. */
async function sampleLatency(base: string, key: string, uid: string, stop: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  while (!stop()) {
    const start = performance.now();
    const res = await fetch(`${base}/v2/2davatar/${uid}`, { headers: { key } });
    await res.arrayBuffer();
    latencies.push(performance.now() - start);
    await sleep(20);
  }
  return latencies;
}

interface Scenario {
  name: string;
  workers: number;
}

/** Speech of the wanted length: espeak-ng sentences, looped by ffmpeg and cut to length. */
async function makeSpeech(dir: string, seconds: number): Promise<string> {
  const raw = join(dir, 'speech-raw.wav');
  const out = join(dir, 'speech.wav');
  await exec('espeak-ng', ['-s', '150', '-w', raw, 'Good evening. Here is the news of the day, read by your virtual anchor. The weather stays mild, and the markets closed a little higher.']);
  await exec('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-i', raw, '-t', String(seconds), '-ar', '22050', '-ac', '1', out]);
  return out;
}

export const clusterBench: BenchSection = async (_settings, emit) => {
  const jobs = whole('BENCH_CLUSTER_JOBS', 12);
  const keyCount = whole('BENCH_CLUSTER_KEYS', 4);
  const speechSec = whole('BENCH_CLUSTER_SPEECH_SEC', 30);
  const keys = Array.from({ length: keyCount }, (_, i) => `bench-key-${i + 1}`);
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-cluster-'));
  const s3: S3TestServer = await startS3Server('virtual-anchor-bench');
  const redis = createClient({ url: REDIS_URL });
  await redis.connect();
  try {
    const speech = await readFile(await makeSpeech(dir, speechSec));
    const scenarios: Scenario[] = [
      { name: 'all', workers: 0 },
      { name: 'api+1worker', workers: 1 },
      { name: 'api+2workers', workers: 2 },
    ];
    for (const scenario of [...scenarios, { name: 'kill', workers: 2 }]) {
      const namespace = `va-bench-${scenario.name}-${Date.now()}`;
      const env: Record<string, string> = {
        VIRTUAL_ANCHOR_API_KEYS: keys.join(','),
        REDIS_URL,
        VIRTUAL_ANCHOR_REDIS_NAMESPACE: namespace,
        VIRTUAL_ANCHOR_S3_BUCKET: s3.bucket,
        VIRTUAL_ANCHOR_S3_ENDPOINT: s3.endpoint,
        VIRTUAL_ANCHOR_S3_REGION: 'us-east-1',
        VIRTUAL_ANCHOR_S3_PREFIX: `${namespace}/`,
        VIRTUAL_ANCHOR_S3_FORCE_PATH_STYLE: '1',
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
      };
      const apiNode = await startNode(scenario.workers === 0 ? 'all' : 'api', env);
      const workers = await Promise.all(Array.from({ length: scenario.workers }, () => startNode('worker', env)));
      const base = `http://127.0.0.1:${apiNode.port}`;
      try {
        // One upload per key, and a dangerousFlag job (no engine) whose GET the latency probe reads.
        const uploads = new Map<string, string>();
        for (const key of keys) {
          const form = new FormData();
          form.set('file', new Blob([speech], { type: 'audio/wav' }), 'speech.wav');
          uploads.set(key, (await api<{ url: string }>(base, '/v1/uploads', key, { method: 'POST', body: form })).url);
        }
        const [avatar] = (await api<{ data: { uid: string }[] }>(base, '/v2/avatar', keys[0]!)).data;
        const post = (key: string, dangerousFlag = false) =>
          api<{ uid: string }[]>(base, '/v2/2davatar', key, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ audioUrl: uploads.get(key), avatarId: avatar!.uid, dangerousFlag }),
          }).then(([job]) => job!.uid);
        const probeUid = await post(keys[0]!, true);
        let idleDone = false;
        const idleTimer = setTimeout(() => (idleDone = true), 3_000);
        const idle = await sampleLatency(base, keys[0]!, probeUid, () => idleDone);
        clearTimeout(idleTimer);

        const started = performance.now();
        const uids = await Promise.all(Array.from({ length: jobs }, (_, i) => post(keys[i % keyCount]!)));
        const status = new Map<string, string>(uids.map((uid) => [uid, 'pending']));
        let finished = false;
        const busy = sampleLatency(base, keys[0]!, probeUid, () => finished);
        let killedAt: number | undefined;
        let killedJobs: string[] = [];
        const doneAt = new Map<string, number>();
        while (!finished) {
          await sleep(500);
          for (const uid of uids) {
            if (doneAt.has(uid)) continue;
            const job = await api<{ status: string }>(base, `/v2/2davatar/${uid}`, keys[uids.indexOf(uid) % keyCount]!);
            status.set(uid, job.status);
            if (job.status === 'completed' || job.status === 'error') doneAt.set(uid, performance.now());
          }
          finished = doneAt.size === uids.length;
          if (scenario.name === 'kill' && killedAt === undefined && [...status.values()].filter((s) => s === 'ongoing').length >= 2) {
            // Which jobs does each worker hold? The records do not say; kill worker 1 and watch whose attempt rises.
            const victim = workers[0]!;
            victim.child.kill('SIGKILL');
            killedAt = performance.now();
            killedJobs = [];
          }
          if (killedAt !== undefined) {
            for (const uid of uids) {
              const raw = await redis.get(`${namespace}::job:${uid}`);
              const attempt = raw ? (JSON.parse(raw) as { attempt?: number }).attempt ?? 1 : 1;
              if (attempt >= 2 && !killedJobs.includes(uid)) killedJobs.push(uid);
            }
          }
        }
        const wallSec = (performance.now() - started) / 1000;
        const saturated = await busy;
        const errors = [...status.values()].filter((s) => s === 'error').length;
        if (scenario.name === 'kill') {
          emit({
            bench: 'cluster',
            scenario: 'kill',
            jobs,
            errors,
            jobsRerun: killedJobs.length,
            secondsFromKillToCompletion: killedJobs.map((uid) => round((doneAt.get(uid)! - killedAt!) / 1000)),
            note: 'with the default staleJobMs (120 s): the BullMQ lock is staleJobMs/4 = 30 s',
          });
        } else {
          emit({
            bench: 'cluster',
            scenario: scenario.name,
            workerProcesses: scenario.workers,
            jobs,
            keys: keyCount,
            speechSec,
            errors,
            wallSec: round(wallSec),
            apiIdleP50Ms: round(median(idle)),
            apiIdleP99Ms: round(percentile(idle, 99)),
            apiBusyP50Ms: round(median(saturated)),
            apiBusyP99Ms: round(percentile(saturated, 99)),
            apiBusyP99OverIdle: round(percentile(saturated, 99) / percentile(idle, 99), 2),
            samples: saturated.length,
          });
        }
      } finally {
        await Promise.all([apiNode, ...workers].map((node) => stopNode(node)));
      }
    }
  } finally {
    await redis.quit().catch(() => undefined);
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  }
};
