import type { CoreRequest } from './types.js';
import { ApiError } from '../errors.js';

/** Whether the request declares a JSON body (`application/json`, any charset; `+json` types too). */
export function isJson(request: CoreRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * Reads and parses the JSON body, or takes the one a host body parser already produced.
 * 415 when not JSON, 413 over `maxBytes`, 400 when it does not parse.
 */
export async function readJson(request: CoreRequest, maxBytes: number): Promise<unknown> {
  if (!isJson(request)) {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with `Content-Type: application/json`');
  }
  if (request.parsedBody !== undefined) return request.parsedBody;
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  // Leave the stream open on early exit: the rest is drained so the client still reads the 413.
  for await (const chunk of request.bodyStream.iterator({ destroyOnReturn: false })) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > maxBytes) {
      request.bodyStream.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw ApiError.badRequest('invalid_json', 'the request body is empty; send a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw ApiError.badRequest('invalid_json', `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, 'payload_too_large', `the JSON body exceeds ${maxBytes} bytes`);
}
