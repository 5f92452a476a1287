/**
 * Child process of the event-loop bench: the HTTP client and the static file server that serves the inputs, kept out
 * of the host process so that only the service's own work shows in the host's event-loop delay. Each IPC message is
 * a {@link JobBatch}; the answer is a {@link JobBatchResult} (or `{ error }`). Exits when the parent disconnects.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { quantile } from './load.js';

/** One job to post: an avatar video (`audio` + `avatarId`) or a separation (`audio`), for `key`. */
export interface JobPlan {
  kind: 'avatarVideo' | 'separation';
  key: string;
  /** Absolute path of the input, served to the service by this process's file server. */
  audio: string;
  avatarId?: string;
}

/** Posts every job at once, then polls each one every `pollMs` until all are `completed` or `error`. */
export interface JobBatch {
  origin: string;
  jobs: JobPlan[];
  pollMs: number;
  /** Gives up (and reports the jobs still open) after this long. */
  timeoutMs: number;
}

/** What happened to one batch. */
export interface JobBatchResult {
  /** Final status per job (`timeout` when it was not final in time), in plan order. */
  statuses: string[];
  /** Failure messages of jobs that ended in `error`. */
  failures: string[];
  /** Time from the first POST to the last job's final state. */
  elapsedMs: number;
  /** Latency of the POSTs and of the status GETs seen by this client (what other requests wait). */
  postP50Ms: number;
  postMaxMs: number;
  getP50Ms: number;
  getP99Ms: number;
  getMaxMs: number;
  gets: number;
}

let files: { server: Server; origin: string; allowed: Set<string> } | undefined;

/** Serves exactly the files of the plans (by base name), so the service downloads them like any audio URL. */
async function fileServer(paths: string[]): Promise<{ origin: string; allowed: Set<string> }> {
  if (!files) {
    const allowed = new Set<string>();
    const server = createServer((req, res) => {
      const name = basename(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const path = [...allowed].find((p) => basename(p) === name);
      if (!path) return void res.writeHead(404).end();
      stat(path).then(
        (info) => {
          res.writeHead(200, { 'content-type': name.endsWith('.mp3') ? 'audio/mpeg' : 'audio/wav', 'content-length': String(info.size) });
          createReadStream(path).on('error', () => res.destroy()).pipe(res);
        },
        () => res.writeHead(404).end(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    files = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, allowed };
  }
  for (const p of paths) files.allowed.add(p);
  return files;
}

async function timedFetch(url: string, init: RequestInit, latencies: number[]): Promise<Response> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  await res.clone().arrayBuffer();
  latencies.push(performance.now() - t0);
  return res;
}

async function runBatch(batch: JobBatch): Promise<JobBatchResult> {
  const served = await fileServer(batch.jobs.map((j) => j.audio));
  const posts: number[] = [];
  const gets: number[] = [];
  const started = performance.now();
  const uids = await Promise.all(
    batch.jobs.map(async (job) => {
      const audioUrl = `${served.origin}/${encodeURIComponent(basename(job.audio))}`;
      const [path, body] =
        job.kind === 'avatarVideo' ? ['/v2/2davatar', { audioUrl, avatarId: job.avatarId }] : ['/v1/sourceSeparations', { audioUri: audioUrl }];
      const res = await timedFetch(
        `${batch.origin}${path}`,
        { method: 'POST', headers: { key: job.key, 'content-type': 'application/json' }, body: JSON.stringify(body) },
        posts,
      );
      const json = (await res.json()) as { uid: string }[] | { error?: { message?: string } };
      if (res.status !== 201 || !Array.isArray(json)) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return `${path}/${json[0]!.uid}`;
    }),
  );
  const statuses: string[] = batch.jobs.map(() => 'timeout');
  const failures: string[] = [];
  const deadline = started + batch.timeoutMs;
  await Promise.all(
    uids.map(async (path, i) => {
      while (performance.now() < deadline) {
        const res = await timedFetch(`${batch.origin}${path}`, { headers: { key: batch.jobs[i]!.key } }, gets);
        const job = (await res.json()) as { status?: string; failure?: { message?: string } };
        if (job.status === 'completed' || job.status === 'error') {
          statuses[i] = job.status;
          if (job.status === 'error') failures.push(`${batch.jobs[i]!.kind}: ${JSON.stringify(job)}`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, batch.pollMs));
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const sorted = (xs: number[]) => Float64Array.from(xs).sort();
  const round = (n: number) => Math.round(n * 10) / 10;
  const p = sorted(posts);
  const g = sorted(gets);
  return {
    statuses,
    failures,
    elapsedMs: round(elapsedMs),
    postP50Ms: round(quantile(p, 0.5)),
    postMaxMs: round(p[p.length - 1] ?? Number.NaN),
    getP50Ms: round(quantile(g, 0.5)),
    getP99Ms: round(quantile(g, 0.99)),
    getMaxMs: round(g[g.length - 1] ?? Number.NaN),
    gets: g.length,
  };
}

process.on('message', (batch: JobBatch) => {
  runBatch(batch).then(
    (result) => process.send!(result),
    (error: unknown) => process.send!({ error: String((error as Error)?.stack ?? error) }),
  );
});
process.on('disconnect', () => {
  files?.server.closeAllConnections();
  process.exit(0);
});
