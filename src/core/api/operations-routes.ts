import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import type { ApiDeps } from './deps.js';

const statusBody = (value: string) =>
  ({ contentType: 'application/json', schema: z.object({ status: z.literal(value) }) }) as const;

/**
 * GET /healthz (liveness: 200 while the process serves, even during start-up), GET /readyz (200 when the job
 * store and the blob store answer and the avatars' start-up assets are rendered or failed, else 503 `unavailable`
 * with the reason) and, when enabled, GET /metrics
 * (Prometheus text). No key on any of them.
 */
export function operationsRoutes(deps: ApiDeps): Route[] {
  const routes: Route[] = [
    {
      method: 'GET',
      pattern: '/healthz',
      access: 'public',
      family: 'none',
      whileStarting: true,
      doc: {
        summary: 'Liveness: 200 while the process serves',
        tag: 'Operations',
        responses: { 200: { description: 'Alive', body: statusBody('ok') } },
        errors: [],
      },
      handle: async () => json(200, { status: 'ok' }, { 'cache-control': 'no-store' }),
    },
    {
      method: 'GET',
      pattern: '/readyz',
      access: 'public',
      family: 'none',
      whileStarting: true,
      doc: {
        summary: 'Readiness: 200 when started, the job store and blob store answer and the avatars\' assets are rendered',
        description:
          'Answers 503 `unavailable` while starting, after a failed start, when a store fails or takes over 2 s, or while this process is still rendering avatars\' assets at start-up; the message names which (`avatar assets still rendering: Amara, Ava`). An avatar whose rendering failed is not waited for (the failure is logged and its `thumbnailGenerationStatus` is `error`).',
        tag: 'Operations',
        responses: { 200: { description: 'Ready', body: statusBody('ready') } },
        errors: [],
      },
      async handle() {
        await deps.readiness();
        return json(200, { status: 'ready' }, { 'cache-control': 'no-store' });
      },
    },
  ];
  const metrics = deps.metrics;
  if (metrics) {
    routes.push({
      method: 'GET',
      pattern: metrics.path,
      access: 'public',
      family: 'none',
      whileStarting: true,
      doc: {
        summary: 'Prometheus metrics (text exposition format)',
        description: 'Served when the `metrics` option is on.',
        tag: 'Operations',
        responses: { 200: { description: 'The metrics', body: { contentType: 'text/plain; version=0.0.4', schema: { type: 'string' } } } },
        errors: [],
      },
      async handle() {
        const { contentType, text } = await metrics.scrape();
        const body = Buffer.from(text, 'utf8');
        const headers = { 'content-type': contentType, 'content-length': String(body.length), 'cache-control': 'no-store' };
        return { status: 200, headers, kind: 'stream', body: Readable.from([body]) };
      },
    });
  }
  return routes;
}
