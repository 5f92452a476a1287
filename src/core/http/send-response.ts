import type { ServerResponse } from 'node:http';
import { finished } from 'node:stream';
import { ApiError } from '../errors.js';
import type { Logger } from '../../domain/logger.js';
import { errorResponse } from './error-response.js';
import type { CoreResponse } from './types.js';

const SENT: Promise<void> = Promise.resolve();

/**
 * Writes a core answer to Node's response (Express's `res`, Koa's `ctx.res`). Never throws and never rejects:
 * - a header or body write that throws becomes the JSON 500 `internal_error` while no header has been sent, and
 *   destroys the connection once one has (the client then sees a cut-off answer, never a wrong one);
 * - a file stream is destroyed whenever the answer ends early (its error, a client that went away);
 * - resolves once the answer is complete or the connection closed; a JSON or empty answer on a fresh response is
 *   written in one `end` and resolves once handed to Node (nothing is left to wait for, and nothing on `res` can
 *   fail after it: Node reports a failed socket write as the connection closing, not as an error of `res`).
 */
export function sendResponse(res: ServerResponse, response: CoreResponse, logger: Logger): Promise<void> {
  if (response.kind !== 'stream' && !res.headersSent && !res.writableEnded && !res.destroyed) {
    try {
      res.statusCode = response.status;
      for (const name in response.headers) res.setHeader(name, response.headers[name]!);
      if (response.kind === 'json') res.end(JSON.stringify(response.body));
      else res.end();
    } catch (error) {
      logger.error('answer failed: could not write it', { status: response.status, headersSent: res.headersSent, error: String(error) });
      failResponse(res, Object.keys(response.headers), logger);
    }
    return SENT;
  }
  return new Promise<void>((resolve) => {
    const body = response.kind === 'stream' ? response.body : undefined;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      resolve();
    };
    // Also the listener of `res`'s own errors (a write to a closed socket), which would otherwise be thrown.
    finished(res, (error) => {
      if (error && !settled) logger.debug('the connection closed before the end of the answer', { status: response.status, error: String(error) });
      if (error && body && !body.destroyed) body.destroy();
      settle();
    });
    const fail = (what: string, error: unknown): void => {
      if (body && !body.destroyed) body.destroy();
      logger.error(`answer failed: ${what}`, { status: response.status, headersSent: res.headersSent, error: String(error) });
      failResponse(res, Object.keys(response.headers), logger);
      settle();
    };
    if (body && (body.errored || body.destroyed)) {
      fail('its file stream failed before the answer', body.errored ?? 'closed');
      return;
    }
    try {
      res.statusCode = response.status;
      for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
      if (response.kind === 'json') res.end(JSON.stringify(response.body));
      else if (response.kind === 'empty') res.end();
    } catch (error) {
      fail('could not write it', error);
      return;
    }
    if (!body) return;
    body.once('error', (error) => {
      body.unpipe(res);
      fail('its file stream failed', error);
    });
    body.pipe(res);
  });
}

/**
 * Ends an answer that could not be written as it was: the JSON 500 `internal_error` while no header has been sent
 * (the headers of the failed answer, `attempted`, removed first), else the connection is destroyed.
 */
export function failResponse(res: ServerResponse, attempted: readonly string[], logger: Logger): void {
  try {
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    for (const name of attempted) res.removeHeader(name);
    const error = ApiError.internal();
    res.statusCode = error.status;
    for (const [name, value] of Object.entries(errorResponse(error).headers)) res.setHeader(name, value);
    res.end(JSON.stringify(error.toBody()));
  } catch (error) {
    logger.error('could not answer 500 either; closing the connection', { error: String(error) });
    res.destroy();
  }
}
