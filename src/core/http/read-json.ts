import type { CoreRequest } from './types.js';
import { ApiError } from '../errors.js';
import { readBody } from './read-body.js';
import { tooLargeText } from '../input/limit-text.js';

/**
 * Deepest nesting of arrays and objects accepted in a JSON body (the top-level object or array is level 1).
 * No request schema goes past a few levels; a body nested deeper is refused with 400 `validation_failed`
 * before anything walks it, so no recursive code (fingerprints, validation) ever sees one.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether the request declares a JSON body (`application/json`, any charset; `+json` types too). */
export function isJson(request: CoreRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads and parses the JSON body, or takes the one a host body parser already produced.
 * 415 when not JSON, 413 over `maxBytes` (with `Connection: close` when the rest of the body was not read off,
 * see {@link readBody}), 400 `invalid_json` when it does not parse or the body was cut off, 400 `validation_failed`
 * when it nests deeper than {@link MAX_JSON_DEPTH} (a host parser's result is checked too).
 */
export async function readJson(request: CoreRequest, maxBytes: number): Promise<unknown> {
  if (!isJson(request)) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with `Content-Type: application/json`');
  }
  if (request.parsedBody !== undefined) return checkedDepth(request.parsedBody);
  const declared = Number(request.headers['content-length'] ?? NaN);
  const read = await readBody(request.bodyStream, maxBytes, Number.isFinite(declared) ? declared : undefined);
  if (read.kind === 'too_large') {
    const size = Number.isFinite(declared) && declared > maxBytes ? declared : undefined;
    const message = tooLargeText('the JSON body', size, maxBytes, 'limits.maxJsonBytes');
    throw new ApiError(413, 'payload_too_large', message, undefined, read.keepAlive ? undefined : { connection: 'close' });
  }
  if (read.kind === 'aborted') throw ApiError.badRequest('invalid_json', 'the request body was cut off before its end');
  const text = read.bytes.toString('utf8');
  if (text.trim() === '') throw ApiError.badRequest('invalid_json', 'the request body is empty; send a JSON object');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    throw ApiError.badRequest('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
  return checkedDepth(parsed);
}

/**
 * `body` when its arrays and objects nest at most {@link MAX_JSON_DEPTH} levels deep; otherwise throws the 400
 * `validation_failed` of a body that does not match its schema. Walks the value with a stack of its own (no
 * recursion), depth first, so a body of any depth is refused after at most `MAX_JSON_DEPTH + 1` levels.
 */
function checkedDepth(body: unknown): unknown {
  const pending: [value: unknown, depth: number][] = [[body, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      throw ApiError.badRequest('validation_failed', 'invalid request body', [
        { field: 'body', message: `arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels` },
      ]);
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) pending.push([child, depth + 1]);
  }
  return body;
}
