import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import type { CoreRequest } from '../core/http/types.js';
import { ApiError } from '../core/errors.js';
import { clientGoneSignal } from '../core/http/client-gone.js';
import { errorResponse } from '../core/http/error-response.js';
import { failResponse, sendResponse } from '../core/http/send-response.js';
import { loggerOf, toInstance } from './instance.js';

/** Express middleware with the instance behind it (`.instance.close()` on shutdown). */
export type VirtualAnchorExpressMiddleware = RequestHandler & { instance: VirtualAnchor };

/**
 * Express middleware serving the whole API: `app.use(virtualAnchor({ apiKeys: ['k1'] }))`.
 * Works with Express 4 and 5, mounted at the root or under a path (`app.use('/media', …)`),
 * with or without a JSON body parser before it. Nothing it does can throw into Express or leave a
 * rejected promise behind: failures while answering are logged and end as a JSON 500 or a closed connection.
 */
export function virtualAnchor(options: VirtualAnchorOptions | VirtualAnchor): VirtualAnchorExpressMiddleware {
  const instance = toInstance(options);
  const logger = loggerOf(instance);
  const serve = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
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
      signal: clientGoneSignal(res),
    };
    const response = await instance.handle(request).catch((error: unknown) => {
      logger.error('request failed', { method: req.method, path: req.originalUrl, error: String(error) });
      return errorResponse(ApiError.internal());
    });
    if (response) await sendResponse(res, response, logger);
    else next();
  };
  const middleware = (req: Request, res: Response, next: NextFunction): void => {
    // The last guard: what is left is an error thrown by `next()` itself.
    serve(req, res, next).catch((error: unknown) => {
      logger.error('request failed in the Express adapter', { method: req.method, path: req.originalUrl, error: String(error) });
      failResponse(res, [], logger);
    });
  };
  return Object.assign(middleware, { instance });
}
