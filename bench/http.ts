/**
 * HTTP overhead of the middleware: GET /v2/2davatar/:id and GET /v2/2davatar (list) on an Express server with
 * seeded jobs, each against a bare Express route on the same server returning the same JSON (precomputed),
 * so `ratio` = middleware throughput / bare Express throughput.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { TOKENS, createVirtualAnchor, virtualAnchor, type AvatarVideoJob, type JobStore } from '../src/index.js';
import { ownerOf } from '../src/core/auth.js';
import { LoadProcess } from './lib/run-load.js';
import type { BenchSection } from './lib/settings.js';

const KEY = 'bench-key';

/** `BENCH_JOBS` (default 500) jobs of the bench key: nine in ten completed (with a result to sign), the rest failed. */
function seedJobs(count: number): AvatarVideoJob[] {
  const t0 = Date.now() - count * 1000;
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(t0 + i * 1000).toISOString();
    const done = i % 10 !== 0;
    const blob = { id: `bench${String(i).padStart(8, '0')}`, contentType: 'video/mp4', size: 123_456 };
    return {
      kind: 'avatarVideo',
      uid: randomUUID(),
      owner: ownerOf(KEY),
      status: done ? 'completed' : 'error',
      createdAt: at,
      updatedAt: at,
      ...(done ? { completedAt: at, result: { video: blob } } : { failure: { code: 'processing_failed', message: 'seeded' } }),
      input: { audioUrl: 'https://example.com/a.mp3', avatarId: randomUUID(), dangerousFlag: false, audio: blob, durationSec: 3 },
    };
  });
}

export const httpBench: BenchSection = async (settings, emit) => {
  const jobCount = Number(process.env.BENCH_JOBS ?? 500);
  const dataDir = await mkdtemp(join(tmpdir(), 'va-bench-http-'));
  const instance = createVirtualAnchor({
    apiKeys: [KEY],
    dataDir,
    logger: false,
    avatars: { builtIn: false },
    backends: { avatarRenderer: false, lipSync: false, separation: false },
  });
  const server = createServer();
  const loader = new LoadProcess();
  try {
    await instance.ready();
    const store = instance.container.resolve<JobStore>(TOKENS.JobStore);
    const jobs = seedJobs(jobCount);
    for (const job of jobs) await store.create(job);
    const target = jobs[jobs.length - 2]!; // a completed one

    const app = express();
    const bare: Record<string, unknown> = {};
    app.get('/bare/:name', (req, res) => {
      res.json(bare[req.params.name]);
    });
    app.use(virtualAnchor(instance));
    server.on('request', app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { key: KEY };

    const scenarios = [
      { route: 'GET /v2/2davatar/:id', path: `/v2/2davatar/${target.uid}`, bare: 'one' },
      { route: 'GET /v2/2davatar', path: '/v2/2davatar', bare: 'list' },
    ];
    for (const scenario of scenarios) {
      const sample = await fetch(`${origin}${scenario.path}`, { headers });
      if (sample.status !== 200) throw new Error(`${scenario.route} answered ${sample.status}: ${await sample.text()}`);
      bare[scenario.bare] = await sample.json();
      const load = async (url: string, durationMs: number) => {
        const result = await loader.run({ url, headers, concurrency: settings.concurrency, durationMs, maxRequests: settings.maxRequests });
        if (result.errors > 0) throw new Error(`${url}: ${result.errors} of ${result.requests} requests failed`);
        return result;
      };
      await load(`${origin}${scenario.path}`, settings.warmupMs);
      await load(`${origin}/bare/${scenario.bare}`, settings.warmupMs);
      const measured = await load(`${origin}${scenario.path}`, settings.durationMs);
      const baseline = await load(`${origin}/bare/${scenario.bare}`, settings.durationMs);
      emit({
        bench: 'http',
        route: scenario.route,
        requestsPerSec: measured.requestsPerSec,
        p50Ms: measured.p50Ms,
        p99Ms: measured.p99Ms,
        baselineRequestsPerSec: baseline.requestsPerSec,
        ratio: Math.round((measured.requestsPerSec / baseline.requestsPerSec) * 1000) / 1000,
        requests: measured.requests,
        baselineP50Ms: baseline.p50Ms,
        baselineP99Ms: baseline.p99Ms,
        seededJobs: jobCount,
        concurrency: settings.concurrency,
        durationMs: settings.durationMs,
      });
    }
  } finally {
    loader.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};
