import { validateHeaderName, validateHeaderValue } from 'node:http';
import { ApiError, UNAVAILABLE_RETRY_AFTER_S } from '../errors.js';
import type { Logger } from '../../domain/logger.js';
import { isStoreUnavailable } from '../../storage/store-unavailable-error.js';
import { CLIENT_GONE_MESSAGE } from './client-gone.js';
import { JSON_CONTENT_TYPE, json, type CoreResponse } from './types.js';

/** Headers on every answer of the middleware: no browser may guess another type than the declared one. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/** Headers known to be writable, checked once here instead of on every answer. */
const CHECKED_HEADERS = new Map<string, string>([['content-type', JSON_CONTENT_TYPE], ...Object.entries(SECURITY_HEADERS)]);
for (const [name, value] of CHECKED_HEADERS) {
  validateHeaderName(name);
  validateHeaderValue(name, value);
}

/** The JSON error answer of `error` (its extra headers, such as `allow` or `retry-after`, included). */
export function errorResponse(error: ApiError): CoreResponse {
  return json(error.status, error.toBody(), { ...error.headers, ...SECURITY_HEADERS });
}

/**
 * Turns anything a route threw into the JSON error answer: an {@link ApiError} as it is; a store that cannot be
 * reached (a `StoreUnavailableError`, recognised by name so that any store may throw one) as
 * 503 `unavailable` with `retry-after`; a request whose client has gone (its `signal` aborted) as 499
 * `client_gone`, which nobody reads, logged at debug level only; anything else as 500 `internal_error`, logged
 * with its stack.
 */
export function toErrorResponse(error: unknown, logger: Logger, request: { method: string; path: string; signal?: AbortSignal }): CoreResponse {
  if (error instanceof ApiError) return errorResponse(error);
  const where = { method: request.method, path: request.path };
  if (request.signal?.aborted) {
    logger.debug('request dropped: the client has gone', { ...where, error: String(error) });
    return errorResponse(new ApiError(499, 'client_gone', CLIENT_GONE_MESSAGE));
  }
  if (isStoreUnavailable(error)) {
    logger.debug('request refused: the job store is unavailable', { ...where, error: String((error as Error).message) });
    return errorResponse(
      new ApiError(503, 'unavailable', 'the job store cannot be reached; retry later', undefined, { 'retry-after': UNAVAILABLE_RETRY_AFTER_S }),
    );
  }
  logger.error('request failed', { ...where, error: String((error as Error | undefined)?.stack ?? error) });
  return errorResponse(ApiError.internal());
}

/**
 * The last check before an answer leaves the core: adds {@link SECURITY_HEADERS} and makes sure that every header
 * can be written (`res.setHeader` would throw on a bad name or value, such as a control character). An answer
 * that could not be written becomes the 500 `internal_error` (its stream closed), so adapters never see one.
 */
export function finishResponse(response: CoreResponse, logger: Logger, request: { method: string; path: string }): CoreResponse {
  const headers = { ...response.headers, ...SECURITY_HEADERS };
  try {
    for (const name in headers) {
      const value = headers[name]!;
      if (CHECKED_HEADERS.get(name) === value) continue;
      validateHeaderName(name);
      validateHeaderValue(name, value);
    }
  } catch (error) {
    if (response.kind === 'stream') response.body.destroy();
    logger.error('answer not sent: a header cannot be written', { method: request.method, path: request.path, error: String(error) });
    return errorResponse(ApiError.internal());
  }
  if (response.kind === 'stream') {
    // Listened to from here on, so that a stream failing before the adapter pipes it cannot be an uncaught error;
    // the adapter sees it as `errored` and answers the 500.
    response.body.once('error', (error) => {
      logger.debug('file stream failed', { method: request.method, path: request.path, error: String(error) });
    });
  }
  return { ...response, headers };
}
