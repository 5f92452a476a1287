import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import type { CoreRequest } from '../core/http/types.js';
import { toInstance } from './instance.js';

/** Express middleware with the instance behind it (`.instance.close()` on shutdown). */
export type VirtualAnchorExpressMiddleware = RequestHandler & { instance: VirtualAnchor };

/**
 * Express middleware serving the whole API: `app.use(virtualAnchor({ apiKeys: ['k1'] }))`.
 * Works with Express 4 and 5, mounted at the root or under a path (`app.use('/media', …)`),
 * with or without a JSON body parser before it.
 */
export function virtualAnchor(options: VirtualAnchorOptions | VirtualAnchor): VirtualAnchorExpressMiddleware {
  const instance = toInstance(options);
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    const query = req.url.indexOf('?');
    const request: CoreRequest = {
      method: req.method,
      path: req.path,
      query: new URLSearchParams(query >= 0 ? req.url.slice(query + 1) : ''),
      headers: req.headers,
      origin: `${req.protocol}://${req.get('host') ?? 'localhost'}`,
      mountPath: req.baseUrl,
      bodyStream: req,
      parsedBody: req.readableEnded ? (req.body as unknown) : undefined,
    };
    instance.handle(request).then(async (response) => {
      if (!response) return next();
      res.status(response.status);
      for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
      if (response.kind === 'json') res.end(JSON.stringify(response.body));
      else if (response.kind === 'empty') res.end();
      else await pipeline(response.body, res).catch(() => res.destroy());
    }, next);
  };
  return Object.assign(middleware, { instance });
}
