import type { Context, Middleware, Next } from 'koa';
import type { VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import type { CoreRequest } from '../core/http/types.js';
import { ApiError } from '../core/errors.js';
import { clientGoneSignal } from '../core/http/client-gone.js';
import { errorResponse } from '../core/http/error-response.js';
import { failResponse, sendResponse } from '../core/http/send-response.js';
import { loggerOf, toInstance } from './instance.js';

/** Koa middleware with the instance behind it (`.instance.close()` on shutdown). */
export type VirtualAnchorKoaMiddleware = Middleware & { instance: VirtualAnchor };

/**
 * Koa middleware serving the whole API: `app.use(virtualAnchorKoa({ apiKeys: ['k1'] }))`.
 * Works with Koa 2 and 3, with or without a body parser before it, and under koa-mount.
 * Failures while answering are logged and end as a JSON 500 or a closed connection; only errors of the
 * middleware after it (`next()`) reach Koa, as Koa expects.
 */
export function virtualAnchorKoa(options: VirtualAnchorOptions | VirtualAnchor): VirtualAnchorKoaMiddleware {
  const instance = toInstance(options);
  const logger = loggerOf(instance);
  const middleware = async (ctx: Context, next: Next): Promise<void> => {
    const request: CoreRequest = {
      method: ctx.method,
      path: ctx.path,
      query: new URLSearchParams(ctx.querystring),
      headers: ctx.req.headers,
      // Not ctx.origin: Koa 3 returns the Origin request header there.
      origin: `${ctx.protocol}://${ctx.host || 'localhost'}`,
      mountPath: (ctx as Context & { mountPath?: string }).mountPath ?? '',
      bodyStream: ctx.req,
      parsedBody: ctx.req.readableEnded ? (ctx.request as { body?: unknown }).body : undefined,
      signal: clientGoneSignal(ctx.res),
    };
    const response = await instance.handle(request).catch((error: unknown) => {
      logger.error('request failed', { method: ctx.method, path: ctx.originalUrl, error: String(error) });
      return errorResponse(ApiError.internal());
    });
    // Errors of the middleware after this one reach Koa, as Koa expects (it answers them itself).
    if (!response) return next();
    if (response.kind === 'json') {
      // Through Koa, so that the host's middleware (compression, logging) sees the answer.
      try {
        ctx.status = response.status;
        ctx.set(response.headers);
        ctx.body = JSON.stringify(response.body);
        return;
      } catch (error) {
        logger.error('answer failed: could not write it', { status: response.status, error: String(error) });
      }
      ctx.respond = false;
      failResponse(ctx.res, Object.keys(response.headers), logger);
      return;
    }
    // Files and empty (HEAD) answers are written directly: Koa would turn an empty body into 204 or a zero
    // length, and would report a client that stops a download halfway (a video seek) as an app error.
    ctx.respond = false;
    await sendResponse(ctx.res, response, logger);
  };
  return Object.assign(middleware, { instance });
}
