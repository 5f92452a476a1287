/**
 * HTTP overhead of the middleware: GET /v2/2davatar/:id and GET /v2/2davatar (list of 20 with signed links) on an
 * Express and a Koa server with seeded jobs, each against a bare route of the same framework on the same server
 * returning the same JSON (precomputed), so `ratio` = middleware throughput / bare throughput, and `cpuRatio` = the
 * bare route's CPU per request / the middleware's (the server's own CPU, steadier than throughput on a machine that
 * other work loads). Middleware and bare
 * runs alternate (which goes first alternates too) over `BENCH_HTTP_ROUNDS` rounds (default 5); the line gives the
 * median ratio and every round's. A `breakdown` line per scenario then says where the CPU of one request goes
 * (V8's sampling profiler, see `lib/cpu-breakdown.ts`), for the middleware and for the bare route.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import Koa from 'koa';
import { TOKENS, createVirtualAnchor, virtualAnchor, virtualAnchorKoa, type AvatarVideoJob, type JobStore, type VirtualAnchor } from '../src/index.js';
import { ownerOf } from '../src/core/auth.js';
import { cpuBreakdown, type LayerRule } from './lib/cpu-breakdown.js';
import { LoadProcess } from './lib/run-load.js';
import type { LoadResult } from './lib/load.js';
import type { BenchSection } from './lib/settings.js';
import { median, round } from './lib/stats.js';

const KEY = 'bench-key';

/** Layers of the breakdown, innermost named frame first (see {@link cpuBreakdown}). */
const LAYERS: LayerRule[] = [
  { layer: 'adapter', test: /\/src\/adapters\// },
  { layer: 'pipeline (route match, auth, request limit)', test: /\/src\/(core\/(service|auth)\.ts|core\/http\/router\.ts|queue\/)/ },
  { layer: 'answer (header check, write)', test: /\/src\/core\/http\/(send-response|error-response|types)\.ts/ },
  { layer: 'links (signing)', test: /\/src\/(core\/links\.ts|storage\/(url-signer|blob-files)\.ts)/ },
  { layer: 'views', test: /\/src\/core\/views\.ts/ },
  { layer: 'job store', test: /\/src\/storage\/|\/node_modules\/(@keyv|keyv)\// },
  { layer: 'validation (zod)', test: /\/node_modules\/zod\// },
  { layer: 'route handler', test: /\/src\/core\/(api|jobs|http)\// },
  { layer: 'other core', test: /\/src\// },
  { layer: 'bare route', test: /\/bench\/http\.ts/ },
  { layer: 'framework (express/koa and their modules)', test: /\/node_modules\// },
];

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

/** Bare answers by name (`one`, `list`), filled from the middleware's own answers before the runs. */
type BareAnswers = Record<string, unknown>;

function expressApp(instance: VirtualAnchor, bare: BareAnswers): RequestListener {
  const app = express();
  app.get('/bare/:name', (req, res) => {
    res.json(bare[req.params.name]);
  });
  app.use(virtualAnchor(instance));
  return app;
}

function koaApp(instance: VirtualAnchor, bare: BareAnswers): RequestListener {
  const app = new Koa();
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/bare/')) return next();
    ctx.body = bare[ctx.path.slice('/bare/'.length)];
  });
  app.use(virtualAnchorKoa(instance));
  return app.callback();
}

async function listen(listener: RequestListener): Promise<{ server: Server; origin: string }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const httpBench: BenchSection = async (settings, emit) => {
  const jobCount = Number(process.env.BENCH_JOBS ?? 500);
  const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
  const profileMs = Number(process.env.BENCH_HTTP_PROFILE_MS ?? 2000);
  const dataDir = await mkdtemp(join(tmpdir(), 'va-bench-http-'));
  const instance = createVirtualAnchor({
    apiKeys: [KEY],
    dataDir,
    logger: false,
    avatars: { builtIn: false },
    backends: { avatarRenderer: false, lipSync: false, separation: false },
  });
  const servers: Server[] = [];
  const loader = new LoadProcess();
  try {
    await instance.ready();
    const store = instance.container.resolve<JobStore>(TOKENS.JobStore);
    const jobs = seedJobs(jobCount);
    for (const job of jobs) await store.create(job);
    const target = jobs[jobs.length - 2]!; // a completed one

    const bare: BareAnswers = {};
    const frameworks = [
      { framework: 'express', ...(await listen(expressApp(instance, bare))) },
      { framework: 'koa', ...(await listen(koaApp(instance, bare))) },
    ];
    servers.push(...frameworks.map((f) => f.server));
    const headers = { key: KEY };
    const routes = [
      { route: 'GET /v2/2davatar/:id', path: `/v2/2davatar/${target.uid}`, bare: 'one' },
      { route: 'GET /v2/2davatar', path: '/v2/2davatar', bare: 'list' },
    ];
    const scenarios = frameworks.flatMap(({ framework, origin }) =>
      routes.map((route) => ({ ...route, framework, url: `${origin}${route.path}`, bareUrl: `${origin}/bare/${route.bare}` })),
    );
    for (const route of routes) {
      const sample = await fetch(`${frameworks[0]!.origin}${route.path}`, { headers });
      if (sample.status !== 200) throw new Error(`${route.route} answered ${sample.status}: ${await sample.text()}`);
      bare[route.bare] = await sample.json();
    }
    /** One load run, with this process's CPU per request (the server's: the load runs in its own process). */
    const load = async (url: string, durationMs: number): Promise<LoadResult & { cpuMicros: number }> => {
      const cpu = process.cpuUsage();
      const result = await loader.run({ url, headers, concurrency: settings.concurrency, durationMs, maxRequests: settings.maxRequests });
      const used = process.cpuUsage(cpu);
      if (result.errors > 0) throw new Error(`${url}: ${result.errors} of ${result.requests} requests failed`);
      return { ...result, cpuMicros: (used.user + used.system) / Math.max(1, result.requests) };
    };

    for (const scenario of scenarios) {
      await load(scenario.url, settings.warmupMs);
      await load(scenario.bareUrl, settings.warmupMs);
    }
    type Run = Awaited<ReturnType<typeof load>>;
    const measured = new Map(scenarios.map((s) => [s, { middleware: [] as Run[], bare: [] as Run[] }]));
    for (let r = 0; r < rounds; r++) {
      for (const scenario of scenarios) {
        const runs = measured.get(scenario)!;
        const order = r % 2 === 0 ? (['middleware', 'bare'] as const) : (['bare', 'middleware'] as const);
        for (const which of order) runs[which].push(await load(which === 'bare' ? scenario.bareUrl : scenario.url, settings.durationMs));
      }
    }
    for (const scenario of scenarios) {
      const { middleware, bare: baseline } = measured.get(scenario)!;
      const ratios = middleware.map((m, i) => round(m.requestsPerSec / baseline[i]!.requestsPerSec));
      const cpuRatios = middleware.map((m, i) => round(baseline[i]!.cpuMicros / m.cpuMicros));
      emit({
        bench: 'http',
        framework: scenario.framework,
        route: scenario.route,
        ratio: round(median(ratios)),
        ratios,
        cpuRatio: round(median(cpuRatios)),
        cpuRatios,
        cpuMicrosPerRequest: round(median(middleware.map((m) => m.cpuMicros)), 1),
        baselineCpuMicrosPerRequest: round(median(baseline.map((m) => m.cpuMicros)), 1),
        requestsPerSec: median(middleware.map((m) => m.requestsPerSec)),
        baselineRequestsPerSec: median(baseline.map((m) => m.requestsPerSec)),
        p50Ms: median(middleware.map((m) => m.p50Ms)),
        p99Ms: median(middleware.map((m) => m.p99Ms)),
        baselineP50Ms: median(baseline.map((m) => m.p50Ms)),
        baselineP99Ms: median(baseline.map((m) => m.p99Ms)),
        rounds,
        seededJobs: jobCount,
        concurrency: settings.concurrency,
        durationMs: settings.durationMs,
      });
    }
    for (const scenario of scenarios) {
      for (const which of ['middleware', 'bare'] as const) {
        const url = which === 'bare' ? scenario.bareUrl : scenario.url;
        const profile = await cpuBreakdown(LAYERS, async () => (await load(url, profileMs)).requests);
        emit({ bench: 'http', breakdown: which, framework: scenario.framework, route: scenario.route, ...profile });
      }
    }
  } finally {
    loader.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    }
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
};
