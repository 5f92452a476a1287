import { create as contentDisposition } from 'content-disposition';
import rangeParser from 'range-parser';
import type { Route, RouteContext } from '../http/router.js';
import type { CoreResponse } from '../http/types.js';
import { ApiError } from '../errors.js';
import type { ApiDeps } from './deps.js';
import { downloadName } from '../file-name.js';
import type { BlobLinkSigner } from '../links.js';
import { fileRouteDoc } from './file-route-docs.js';

/**
 * The one `bytes=` range of a Range header, parsed by `range-parser` (the parser Express uses); `undefined` when the
 * header is absent, malformed, of another unit, or names several ranges (the whole file is sent then, 200);
 * `'unsatisfiable'` when the range lies outside the file (416). Like Express, it tolerates spaces around the numbers.
 *
 * range-parser 1.x refuses a suffix range longer than the file (`bytes=-500` of 100 bytes); RFC 9110 §14.1.2 says the
 * whole file is meant, so that case is served whole as 206 (range-parser 2 fixes it, but needs Node 22).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const value = header?.trim();
  if (!value?.startsWith('bytes=') || value.includes(',')) return undefined;
  const ranges = rangeParser(size, value);
  if (ranges === -2) return undefined;
  if (ranges === -1) {
    const suffix = /^bytes=\s*-\s*(\d+)\s*$/.exec(value)?.[1];
    return suffix !== undefined && Number(suffix) > 0 && size > 0 ? { start: 0, end: size - 1 } : 'unsatisfiable';
  }
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/**
 * Checks a link's signature. A name in the path must be the signed one; a link signed without a name (the
 * `/files/:id` shape, or a link handed out before names were signed) still works with any name appended, but that
 * name is ignored. Returns the verdict and the download name the link may use.
 */
function checkLink(
  signer: BlobLinkSigner,
  link: { id: string; name?: string; expires: number; signature: string },
): { verdict: 'ok' | 'expired' | 'invalid'; name?: string } {
  const now = Date.now();
  if (link.name !== undefined) {
    const verdict = signer.verify(link.id, link.expires, link.signature, now, link.name);
    if (verdict !== 'invalid') return { verdict, name: link.name };
  }
  return { verdict: signer.verify(link.id, link.expires, link.signature, now) };
}

/**
 * GET/HEAD /files/:id[/:name]?expires=…&signature=…: the signed links of responses. No key needed;
 * the signature is the credential. Range requests work, so browsers can seek in an mp4.
 * Invalid signature → 403; expired link → 410; file deleted by retention → 410.
 * The download name (`Content-Disposition: inline`, RFC 6266 with an RFC 5987 `filename*`) is the signed name of
 * the link, else the stored file name of the blob, else none.
 */
export function fileRoutes(deps: ApiDeps): Route[] {
  const serve = async ({ request, params }: RouteContext): Promise<CoreResponse> => {
    const id = params.id!;
    const expires = Number(request.query.get('expires'));
    const signature = request.query.get('signature') ?? '';
    const { verdict, name } = checkLink(deps.signer, { id, name: params.name, expires, signature });
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
    const fileName = name ?? info.meta.fileName;
    if (fileName) headers['content-disposition'] = contentDisposition(downloadName(fileName), { type: 'inline' });
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
