/**
 * `npm run bench running-job-redis`: the Redis round trips one running job costs per second, in steady state. One
 * instance (role `all`, Redis job store, BullMQ queue, a namespace of its own) runs `BENCH_RUNNING_JOBS` (default 8)
 * separation jobs at once with an engine of this file that only reports progress every 100 ms for
 * `BENCH_RUNNING_JOB_MS` (default 12 000) and then writes two short wav stems. Once every job is `ongoing`, a MONITOR
 * connection counts the commands naming the namespace for `BENCH_RUNNING_WINDOW_MS` (default 6 000) while nothing
 * polls: heartbeats, progress writes, status reads, BullMQ's lock renewals and semaphore, Lua included as one
 * command each. The line gives round trips per running job per second, by command. Also runnable on an older
 * checkout (it uses only the package's public API): `npx tsx bench/running-job-redis.ts`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { virtualAnchor } from '../src/index.js';
import { wavFile } from '../src/testing/wav.js';
import type { EngineContext, SeparationEngine, SeparationInput, SeparationOutput } from '../src/domain/engines.js';
import { countRedisCommands } from '../test/helpers/redis-command-counter.js';
import { deleteRedisNamespace } from '../test/helpers/redis-server.js';
import type { BenchLine } from './lib/settings.js';
import { round } from './lib/stats.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const JOBS = Number(process.env.BENCH_RUNNING_JOBS ?? 8);
const RUN_MS = Number(process.env.BENCH_RUNNING_JOB_MS ?? 12_000);
const WINDOW_MS = Number(process.env.BENCH_RUNNING_WINDOW_MS ?? 6_000);
const KEYS = Array.from({ length: JOBS }, (_, i) => `bench-key-${i}-${'x'.repeat(8)}`);

/** A mono 16-bit wav of `seconds` of silence. */
function silentWav(seconds: number, rate = 16_000): Buffer {
  return wavFile(Buffer.alloc(Math.round(seconds * rate) * 2), rate);
}

/** Reports progress every 100 ms for RUN_MS, then writes silent stems; stops at once when aborted. */
class SteadyEngine implements SeparationEngine {
  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    const started = Date.now();
    while (Date.now() - started < RUN_MS) {
      context.signal.throwIfAborted();
      context.onProgress({ done: (Date.now() - started) / 1000, total: RUN_MS / 1000, unit: 'seconds' });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await writeFile(input.speechPath, silentWav(0.5));
    await writeFile(input.ambiencePath, silentWav(0.5));
    return { contentType: 'audio/wav', extension: 'wav' };
  }
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs the measurement and returns its line. */
export async function measureRunningJobRedis(): Promise<BenchLine> {
  const namespace = `va-bench-rt-${randomBytes(3).toString('hex')}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'va-bench-rt-'));
  const input = silentWav(1);
  const files = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(input));
  const filesUrl = await listen(files);
  const media = virtualAnchor({
    apiKeys: KEYS,
    redis: REDIS_URL,
    redisNamespace: namespace,
    dataDir,
    allowPrivateUrls: true,
    logger: false,
    concurrency: { engines: JOBS },
    backends: { separation: new SteadyEngine(), lipSync: false, avatarRenderer: false, faceDetector: false, photoRenderer: false },
  });
  await media.instance.ready();
  const app = express();
  app.use(media);
  const server = createServer(app);
  const base = await listen(server);
  const counter = await countRedisCommands(REDIS_URL, namespace);
  counter.counting = false;
  // Commands run inside a script are not round trips.
  const counts = counter.roundTrips;
  try {
    const uids: [string, string][] = [];
    for (const key of KEYS) {
      const res = await fetch(`${base}/v1/sourceSeparations`, {
        method: 'POST',
        headers: { key, 'content-type': 'application/json' },
        body: JSON.stringify({ audioUri: `${filesUrl}/input.wav` }),
      });
      if (res.status !== 200 && res.status !== 201) throw new Error(`creation answered ${res.status}: ${await res.text()}`);
      const [created] = (await res.json()) as { uid: string }[];
      uids.push([created!.uid, key]);
    }
    const status = async ([uid, key]: [string, string]) =>
      ((await (await fetch(`${base}/v1/sourceSeparations/${uid}`, { headers: { key } })).json()) as { status: string }).status;
    for (const deadline = Date.now() + 30_000; ; ) {
      if ((await Promise.all(uids.map(status))).every((s) => s === 'ongoing')) break;
      if (Date.now() > deadline) throw new Error('the jobs did not all start within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    counter.counting = true;
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    counter.counting = false;
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const perJobSecond = (n: number) => round(n / JOBS / (WINDOW_MS / 1000), 3);
    return {
      bench: 'running-job-redis',
      jobs: JOBS,
      windowMs: WINDOW_MS,
      roundTripsPerJobSecond: perJobSecond(total),
      byCommand: Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([command, n]) => [command, perJobSecond(n)])),
    };
  } finally {
    await counter.close();
    server.closeAllConnections();
    server.close();
    files.close();
    await media.instance.close();
    await deleteRedisNamespace(namespace, REDIS_URL);
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await measureRunningJobRedis())}\n`);
  process.exit(0);
}
