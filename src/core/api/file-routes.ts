import type { Route, RouteContext } from '../http/router.js';
import type { CoreResponse } from '../http/types.js';
import { ApiError } from '../errors.js';
import type { ApiDeps } from './deps.js';
import { fileRouteDoc } from './file-route-docs.js';

/** Parses a single `bytes=` range; `undefined` for none, `'unsatisfiable'` when out of bounds. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

/**
 * GET/HEAD /files/:id[/:name]?expires=…&signature=…: the signed links of responses. No key needed;
 * the signature is the credential. Range requests work, so browsers can seek in an mp4.
 * Invalid signature → 403; expired link → 410; file deleted by retention → 410.
 */
export function fileRoutes(deps: ApiDeps): Route[] {
  const serve = async ({ request, params }: RouteContext): Promise<CoreResponse> => {
    const id = params.id!;
    const expires = Number(request.query.get('expires'));
    const signature = request.query.get('signature') ?? '';
    const verdict = deps.signer.verify(id, expires, signature, Date.now());
    if (verdict === 'invalid') throw new ApiError(403, 'invalid_signature', 'this link is not valid');
    if (verdict === 'expired') throw new ApiError(410, 'link_expired', 'this link has expired; fetch the resource again for a fresh link');
    const info = await deps.blobs.stat(id);
    if (!info) throw new ApiError(410, 'file_deleted', 'this file was deleted (retention period over)');
    const headers: Record<string, string> = {
      'content-type': info.contentType,
      'accept-ranges': 'bytes',
      'cache-control': 'private, max-age=3600',
      etag: `"${info.id}-${info.size}"`,
    };
    if (params.name) headers['content-disposition'] = `inline; filename="${params.name.replace(/["\\\r\n]/g, '_')}"`;
    const rangeHeader = request.headers['range'];
    const range = parseRange(Array.isArray(rangeHeader) ? rangeHeader[0] : rangeHeader, info.size);
    if (range === 'unsatisfiable') {
      throw new ApiError(416, 'range_not_satisfiable', 'the requested range is outside the file', undefined, {
        'content-range': `bytes */${info.size}`,
      });
    }
    const status = range ? 206 : 200;
    headers['content-length'] = String(range ? range.end - range.start + 1 : info.size);
    if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${info.size}`;
    if (request.method === 'HEAD') return { status, headers, kind: 'empty' };
    const stream = await deps.blobs.open(id, range);
    if (!stream) throw new ApiError(410, 'file_deleted', 'this file was deleted (retention period over)');
    return { status, headers, kind: 'stream', body: stream };
  };
  return [
    { method: 'GET', pattern: '/files/:id', access: 'public', family: 'none', doc: fileRouteDoc(false), handle: serve },
    { method: 'GET', pattern: '/files/:id/:name', access: 'public', family: 'none', doc: fileRouteDoc(true), handle: serve },
  ];
}
