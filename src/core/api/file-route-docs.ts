import { z } from 'zod';
import type { RouteDoc } from '../http/route-doc.js';

const binary = { type: 'string', contentMediaType: 'application/octet-stream' };
const fileHeaders = {
  'content-type': 'The file type (video/mp4, audio/wav, image/png, …)',
  'content-length': 'Bytes in this answer',
  'accept-ranges': '`bytes`',
  etag: 'Changes when the file does',
};

/** Documentation of the signed file links (`GET /files/:id` and `/files/:id/:name`); HEAD answers the same headers. */
export function fileRouteDoc(named: boolean): RouteDoc {
  return {
    summary: named ? 'A file of a response, under a download name' : 'A file of a response',
    description:
      'The signed links of responses (`path`, `previewImagePath`, …). No key: the signature is the credential. ' +
      'Range requests work (one `bytes=` range), so players can seek. HEAD answers the same headers without the body.',
    tag: 'Files',
    params: z.object({
      id: z.string().meta({ description: 'File id' }),
      ...(named ? { name: z.string().meta({ description: 'Download name, sent back in `Content-Disposition`' }) } : {}),
    }),
    query: z.object({
      expires: z.string().meta({ description: 'Expiry of the link (ms since the epoch)' }),
      signature: z.string().meta({ description: 'Signature of the link' }),
    }),
    responses: {
      200: {
        description: 'The whole file',
        body: { contentType: 'application/octet-stream', schema: binary },
        headers: named ? { ...fileHeaders, 'content-disposition': '`inline; filename="<name>"`' } : fileHeaders,
      },
      206: {
        description: 'The requested byte range',
        body: { contentType: 'application/octet-stream', schema: binary },
        headers: { ...fileHeaders, 'content-range': '`bytes <start>-<end>/<size>`' },
      },
    },
    errors: [403, 410, 416],
  };
}
