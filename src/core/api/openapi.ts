import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Route } from '../http/router.js';
import type { DocBody } from '../http/route-doc.js';
import { errorBodySchema } from '../schemas/common.js';
import type { KindRegistry } from '../kinds/registry.js';
import { ERROR_STATUSES } from './error-codes.js';

/** Name of the API key security scheme in the document. */
const API_KEY = 'ApiKey';

/** `/v2/avatar/:uid` → `/v2/avatar/{uid}` */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The statuses a route can answer besides its successes: its own errors plus those of the request pipeline. */
export function errorStatuses(route: Route): number[] {
  const statuses = new Set(route.doc.errors);
  if (route.access === 'key') statuses.add(403);
  if (route.family !== 'none') statuses.add(429);
  if (route.jsonBody) [400, 413, 415].forEach((s) => statuses.add(s));
  [405, 500, 503].forEach((s) => statuses.add(s));
  return [...statuses].sort((a, b) => a - b);
}

const headerObjects = (headers: Record<string, string> | undefined) =>
  headers && Object.fromEntries(Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: 'string' as const } }]));

const content = (body: DocBody | DocBody[] | undefined) =>
  body && Object.fromEntries((Array.isArray(body) ? body : [body]).map((one) => [one.contentType, { schema: one.schema }]));

function errorResponse(status: number): ResponseConfig {
  const known = ERROR_STATUSES[status];
  if (!known) throw new Error(`status ${status} is not in ERROR_STATUSES (src/core/api/error-codes.ts)`);
  return {
    description: `${known.description}. Codes: ${Object.keys(known.codes).map((c) => `\`${c}\``).join(', ')}.`,
    headers: headerObjects(known.headers),
    content: { 'application/json': { schema: errorBodySchema } },
  };
}

function pathParams(route: Route): z.ZodObject | undefined {
  if (route.doc.params) return route.doc.params;
  const names = [...route.pattern.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  return names.length > 0 ? z.object(Object.fromEntries(names.map((name) => [name, z.string()]))) : undefined;
}

function operationId(route: Route): string {
  const words = route.pattern.split(/[/:_.-]+/).filter(Boolean);
  return route.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function operation(route: Route): RouteConfig {
  const { doc } = route;
  const responses: Record<string, ResponseConfig> = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    responses[status] = { description: response.description, headers: headerObjects(response.headers), content: content(response.body) };
  }
  for (const status of errorStatuses(route)) responses[String(status)] = errorResponse(status);
  return {
    method: route.method.toLowerCase() as RouteConfig['method'],
    path: openApiPath(route.pattern),
    operationId: operationId(route),
    summary: doc.summary,
    description: doc.description,
    tags: [doc.tag],
    security: route.access === 'key' ? [{ [API_KEY]: [] }] : [],
    request: {
      params: pathParams(route),
      query: doc.query,
      headers: doc.headers,
      body: doc.body && { required: true, content: content(doc.body)! },
    },
    responses,
  };
}

/** The events POSTed to a job's `webhookUrl` (OpenAPI 3.1 `webhooks`): one per kind that sends them. */
function registerWebhookEvents(registry: OpenAPIRegistry, kinds: KindRegistry): void {
  const signed = z.object({
    'webhook-id': z.string().meta({ description: 'Stable per delivery: the same on every retry (deduplicate on it)' }),
    'webhook-timestamp': z.string().meta({ description: 'Seconds since the epoch when this attempt was signed' }),
    'webhook-signature': z.string().meta({ description: '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` under the `whsec_` secret (Standard Webhooks); check with `verifyWebhook`' }),
  });
  for (const { name, summary, schema } of kinds.all.flatMap((kind) => (kind.api?.webhook ? [kind.api.webhook] : []))) {
    registry.registerWebhook({
      method: 'post',
      path: name,
      operationId: name,
      summary,
      description: 'Retried with backoff (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) until the receiver answers 2xx within 10 s.',
      tags: ['Webhooks'],
      request: { headers: signed, body: { required: true, content: { 'application/json': { schema } } } },
      responses: { 200: { description: 'Any 2xx acknowledges the event' } },
    });
  }
}

/**
 * The OpenAPI 3.1 document of the mounted API, generated from the route table (each route's `doc`), the zod schemas
 * that validate requests and the job kinds' webhook events, so a route, parameter or status cannot go undocumented.
 */
export function buildOpenApi(routes: readonly Route[], kinds: KindRegistry): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', API_KEY, {
    type: 'apiKey',
    in: 'header',
    name: 'key',
    description: 'API key, bare or as `Bearer <key>`',
  });
  for (const route of routes) registry.registerPath(operation(route));
  registerWebhookEvents(registry, kinds);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'virtual-anchor',
      version: '0.1.0',
      description:
        'Lip-synced avatar videos (/v2) and speech/ambience source separation (/v1, beta). Every error answers ' +
        '`{ "error": { "code", "message", "details"? } }`; the codes of each status are listed on its responses.',
    },
  });
  return document as unknown as Record<string, unknown>;
}
