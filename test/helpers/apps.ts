import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import Koa from 'koa';
import request from 'supertest';
import { virtualAnchor, virtualAnchorKoa, type VirtualAnchor, type VirtualAnchorOptions } from '../../src/index.js';
import { FakeAvatarRenderer, FakeLipSyncEngine, FakeSeparationEngine } from './engines.js';
import { BINARIES } from './media.js';

/** The host frameworks every contract test runs against. */
export const ADAPTERS = ['express', 'koa'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** Time limit of one adapter's suite in a contract file: a hung request fails the suite instead of stalling the run. */
export const SUITE_TIMEOUT_MS = 120_000;

/** API keys every test app accepts. Each test area uses its own key so background jobs never mix. */
export const KEYS = {
  a: 'test-key-alpha',
  b: 'test-key-bravo',
  c: 'test-key-charlie',
  d: 'test-key-delta',
  e: 'test-key-echo',
} as const;

/** Options of {@link makeApp}: service options plus where the host app mounts the middleware. */
export interface AppOptions extends Partial<VirtualAnchorOptions> {
  /** Express only: `app.use(mountPath, middleware)`. Koa has no mount in core; use `basePath` there. */
  mountPath?: string;
  /** Put a JSON body parser in front of the middleware (`express.json()`; for Koa, one like koa-bodyparser). */
  jsonBodyParser?: boolean;
  /** Resolve before the avatar assets exist (default: wait for them). */
  skipAvatarWait?: boolean;
}

/** What koa-bodyparser does for JSON, in a few lines (the package is not a dependency). */
export const koaJsonBody: Koa.Middleware = async (ctx, next) => {
  if (ctx.is('application/json')) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    try {
      (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      ctx.throw(400, 'invalid JSON');
    }
  }
  await next();
};

/** A running host app with one fresh instance of the middleware, listening on 127.0.0.1. */
export interface TestApp {
  adapter: Adapter;
  instance: VirtualAnchor;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** supertest bound to the server (requests reach the real listener, so links in responses are usable). */
  http: request.Agent;
  dataDir: string;
  /** The engine doubles used unless `backends` named others. */
  lipSync: FakeLipSyncEngine;
  separation: FakeSeparationEngine;
  close(): Promise<void>;
}

const open = new Set<TestApp>();

/**
 * Starts an Express or Koa app mounting a fresh instance: a unique temp `dataDir`, silent logger,
 * private URLs allowed, built-in avatars with a copying asset renderer, engine doubles, and a
 * 300 ms `dangerousFlag` delay, and the fast static ffmpeg/ffprobe builds. `options` override these (`backends` entries one by one).
 * Resolves once the instance is ready and the avatar assets exist (unless `skipAvatarWait`).
 */
export async function makeApp(adapter: Adapter, options: AppOptions = {}): Promise<TestApp> {
  const { mountPath, jsonBodyParser, skipAvatarWait, backends, ...rest } = options;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), `va-contract-${adapter}-`)));
  const lipSync = new FakeLipSyncEngine();
  const separation = new FakeSeparationEngine();
  const serviceOptions: VirtualAnchorOptions = {
    apiKeys: Object.values(KEYS),
    logger: false,
    allowPrivateUrls: true,
    avatars: { builtIn: true },
    dangerousFlagDelayMs: 300,
    ...BINARIES,
    ...rest,
    dataDir,
    backends: { avatarRenderer: new FakeAvatarRenderer(), lipSync, separation, ...backends },
  };
  let server: Server;
  let instance: VirtualAnchor;
  if (adapter === 'express') {
    const middleware = virtualAnchor(serviceOptions);
    instance = middleware.instance;
    const app = express();
    if (jsonBodyParser) app.use(express.json());
    if (mountPath) app.use(mountPath, middleware);
    else app.use(middleware);
    server = createServer(app);
  } else {
    if (mountPath) throw new Error('mountPath is Express-only; use basePath with Koa');
    const middleware = virtualAnchorKoa(serviceOptions);
    instance = middleware.instance;
    const app = new Koa();
    // Koa logs a stream body cut off by the client (here: a test closing the app right after a download) as an error.
    app.on('error', (error: Error & { code?: string }) => {
      if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') console.error('Koa app error:', error);
    });
    if (jsonBodyParser) app.use(koaJsonBody);
    app.use(middleware);
    server = createServer(app.callback());
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const testApp: TestApp = {
    adapter,
    instance,
    origin,
    http: request.agent(server),
    dataDir,
    lipSync,
    separation,
    async close() {
      open.delete(testApp);
      await instance.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A request still in its handler when the sockets closed may write one more file: retry the removal.
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
  open.add(testApp);
  try {
    await instance.ready();
    if (!skipAvatarWait) await instance.avatarsReady();
  } catch (error) {
    await testApp.close();
    throw error;
  }
  return testApp;
}

/** One app per adapter, each with its own instance and data folder. */
export async function makeApps(options: AppOptions = {}): Promise<Record<Adapter, TestApp> & { close(): Promise<void> }> {
  const [expressApp, koaApp] = await Promise.all(ADAPTERS.map((adapter) => makeApp(adapter, options)));
  return {
    express: expressApp!,
    koa: koaApp!,
    close: async () => {
      await Promise.all([expressApp!.close(), koaApp!.close()]);
    },
  };
}

/** Closes every app still open (use in `after`). */
export async function closeAllApps(): Promise<void> {
  await Promise.all([...open].map((app) => app.close()));
}
