import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { ApiError } from '../errors.js';
import { uploadSchema, type UploadView } from '../schemas/upload.js';
import type { ApiDeps } from './deps.js';
import { idempotencyKeyOf, requestFingerprint } from '../idempotency/idempotency.js';
import { IDEMPOTENCY_HEADER_DOC, IDEMPOTENT_REPLAYED_DOC } from './idempotency-doc.js';

/** Path of an upload's private URL; the input resolver recognises it. */
export const UPLOAD_PATH = '/v1/uploads';

/** POST /v1/uploads (multipart, one part `file`) and GET /v1/uploads/:id (the upload's metadata, same key only). */
export function uploadRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: UPLOAD_PATH,
      access: 'key',
      family: 'v1',
      doc: {
        summary: 'Upload a file; its private URL is usable as job input by the same key (kept 24 h)',
        tag: 'Uploads',
        body: {
          contentType: 'multipart/form-data',
          schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: ['file'] },
        },
        headers: IDEMPOTENCY_HEADER_DOC,
        responses: {
          201: {
            description: 'Uploaded (with `Idempotency-Key`: the first answer again for the same file and name)',
            body: { contentType: 'application/json', schema: uploadSchema },
            headers: IDEMPOTENT_REPLAYED_DOC,
          },
        },
        errors: [400, 409, 413, 422],
      },
      async handle({ request, owner, baseUrl }) {
        const key = idempotencyKeyOf(request.headers);
        // The file is stored first (its hash is computed while it streams); a repeat then deletes its copy and replays.
        const upload = await deps.uploads.receive(request.bodyStream, request.headers, owner);
        const fingerprint = requestFingerprint(`POST ${UPLOAD_PATH}`, upload.sha256, upload.fileName, upload.blob.contentType);
        const view: UploadView = {
          url: `${baseUrl}${UPLOAD_PATH}/${upload.blob.id}`,
          uid: upload.blob.id,
          fileName: upload.fileName,
          contentType: upload.blob.contentType,
          size: upload.blob.size,
          createdAt: upload.createdAt,
          expiresAt: upload.expiresAt,
        };
        return deps.idempotency.run(key, owner, fingerprint, async () => json(201, view), () => deps.blobs.delete(upload.blob.id));
      },
    },
    {
      method: 'GET',
      pattern: `${UPLOAD_PATH}/:id`,
      access: 'key',
      family: 'v1',
      doc: {
        summary: "An upload's metadata",
        tag: 'Uploads',
        responses: { 200: { description: 'The upload', body: { contentType: 'application/json', schema: uploadSchema } } },
        errors: [404],
      },
      async handle({ params, owner, baseUrl }) {
        const info = await deps.blobs.stat(params.id!);
        if (!info || info.meta.owner !== owner || !info.meta.fileName) throw ApiError.notFound('upload');
        const view: UploadView = {
          url: `${baseUrl}${UPLOAD_PATH}/${info.id}`,
          uid: info.id,
          fileName: info.meta.fileName,
          contentType: info.contentType,
          size: info.size,
          createdAt: info.createdAt,
          expiresAt: info.meta.expiresAt ?? info.createdAt,
        };
        return json(200, view);
      },
    },
  ];
}
