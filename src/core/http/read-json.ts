import type { CoreRequest } from './types.js';
import { ApiError } from '../errors.js';
import { readBody } from './read-body.js';

/** Whether the request declares a JSON body (`application/json`, any charset; `+json` types too). */
export function isJson(request: CoreRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads and parses the JSON body, or takes the one a host body parser already produced.
 * 415 when not JSON, 413 over `maxBytes` (with `Connection: close` when the rest of the body was not read off,
 * see {@link readBody}), 400 when it does not parse or the body was cut off.
 */
export async function readJson(request: CoreRequest, maxBytes: number): Promise<unknown> {
  if (!isJson(request)) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with `Content-Type: application/json`');
  }
  if (request.parsedBody !== undefined) return request.parsedBody;
  const declared = Number(request.headers['content-length'] ?? NaN);
  const read = await readBody(request.bodyStream, maxBytes, Number.isFinite(declared) ? declared : undefined);
  if (read.kind === 'too_large') {
    throw new ApiError(413, 'payload_too_large', `the JSON body exceeds ${maxBytes} bytes`, undefined, read.keepAlive ? undefined : { connection: 'close' });
  }
  if (read.kind === 'aborted') throw ApiError.badRequest('invalid_json', 'the request body was cut off before its end');
  const text = read.bytes.toString('utf8');
  if (text.trim() === '') throw ApiError.badRequest('invalid_json', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw ApiError.badRequest('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
}
