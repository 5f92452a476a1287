import type { Context, Middleware, Next } from 'koa';
import { pipeline } from 'node:stream/promises';
import type { VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import type { CoreRequest } from '../core/http/types.js';
import { toInstance } from './instance.js';

/** Koa middleware with the instance behind it (`.instance.close()` on shutdown). */
export type VirtualAnchorKoaMiddleware = Middleware & { instance: VirtualAnchor };

/**
 * Koa middleware serving the whole API: `app.use(virtualAnchorKoa({ apiKeys: ['k1'] }))`.
 * Works with Koa 2 and 3, with or without a body parser before it, and under koa-mount.
 */
export function virtualAnchorKoa(options: VirtualAnchorOptions | VirtualAnchor): VirtualAnchorKoaMiddleware {
  const instance = toInstance(options);
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
    };
    const response = await instance.handle(request);
    if (!response) return next();
    if (response.kind === 'json') {
      ctx.status = response.status;
      ctx.set(response.headers);
      ctx.body = JSON.stringify(response.body);
      return;
    }
    // Files and empty (HEAD) answers are written directly: Koa would turn an empty body into 204 or a zero
    // length, and would report a client that stops a download halfway (a video seek) as an app error.
    ctx.respond = false;
    ctx.res.writeHead(response.status, response.headers);
    if (response.kind === 'empty') ctx.res.end();
    else await pipeline(response.body, ctx.res).catch(() => ctx.res.destroy());
  };
  return Object.assign(middleware, { instance });
}
