import { ApiError } from './errors.js';
import type { AuthenticateFn } from './auth.js';
import { authenticateRequest } from './auth.js';
import { Router, type Route } from './http/router.js';
import type { CoreRequest, CoreResponse } from './http/types.js';
import { errorResponse, finishResponse, toErrorResponse } from './http/error-response.js';
import { KeyedQueues } from '../queue/keyed-queues.js';
import type { Logger } from '../domain/logger.js';

/** Settings of the HTTP front of the core. */
export interface HttpSettings {
  basePath: string;
  publicUrl?: string;
  authenticate: AuthenticateFn;
  /** Requests of one key in flight at once, per API family. */
  requestsPerKey: { v1: number; v2: number };
  maxQueuedRequestsPerKey: number;
}

/**
 * The framework-neutral request pipeline: route match → auth (403, 503) → per-key request limit (429) →
 * handler → JSON error mapping → header check. Adapters call {@link HttpCore.handle} and copy the result out.
 * `handle` never rejects: whatever a route throws becomes the JSON error shape, and every answer carries
 * `X-Content-Type-Options: nosniff` and only headers that Node can write.
 */
export class HttpCore {
  private readonly router: Router;
  private readonly limits: Record<'v1' | 'v2', KeyedQueues>;

  constructor(
    routes: readonly Route[],
    private readonly settings: HttpSettings,
    private readonly logger: Logger,
    /** Waits for start-up; `undefined` once started (then nothing is awaited). */
    private readonly ready: () => Promise<void> | undefined,
  ) {
    this.router = new Router(routes);
    this.limits = {
      v1: new KeyedQueues(settings.requestsPerKey.v1),
      v2: new KeyedQueues(settings.requestsPerKey.v2),
    };
  }

  /** Handles a request, or returns `undefined` when the path is not one of this middleware's. Never rejects. */
  async handle(request: CoreRequest): Promise<CoreResponse | undefined> {
    let response: CoreResponse | undefined;
    try {
      response = await this.dispatch(request);
    } catch (error) {
      response = toErrorResponse(error, this.logger, request);
    }
    return response && finishResponse(response, this.logger, request);
  }

  private async dispatch(request: CoreRequest): Promise<CoreResponse | undefined> {
    const path = this.stripBasePath(request.path);
    if (path === undefined) return undefined;
    const match = this.router.match(request.method.toUpperCase(), path);
    if (match.kind === 'none') return undefined;
    if (match.kind === 'method_not_allowed') {
      const allowed = [...new Set(match.allowed)].join(', ');
      return errorResponse(new ApiError(405, 'method_not_allowed', `use ${allowed} on this path`, undefined, { allow: allowed }));
    }
    const { route, params } = match;
    const starting = route.whileStarting ? undefined : this.ready();
    if (starting) await starting;
    let owner = route.access === 'key' ? authenticateRequest(request.headers, this.settings.authenticate, this.logger) : '';
    if (typeof owner !== 'string') owner = await owner;
    const baseUrl = this.settings.publicUrl ?? `${request.origin}${request.mountPath}${this.settings.basePath}`;
    const context = { request, params, owner, baseUrl };
    if (route.family === 'none' || !owner || this.settings.requestsPerKey[route.family] === Number.POSITIVE_INFINITY) {
      return route.handle(context);
    }
    const run = () => route.handle(context);
    const queue = this.limits[route.family];
    const key = owner;
    if (queue.running(key) + queue.waiting(key) >= this.settings.requestsPerKey[route.family] + this.settings.maxQueuedRequestsPerKey) {
      throw new ApiError(429, 'too_many_requests', 'too many requests of this key are waiting; retry later', undefined, { 'retry-after': '1' });
    }
    // A request whose client leaves while it waits for the key's slot is dropped without running.
    return await queue.run(key, run, request.signal);
  }

  private stripBasePath(path: string): string | undefined {
    const base = this.settings.basePath;
    if (!base) return path;
    if (path === base) return '/';
    return path.startsWith(`${base}/`) ? path.slice(base.length) : undefined;
  }
}
