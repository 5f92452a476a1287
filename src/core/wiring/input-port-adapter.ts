import type { Readable } from 'node:stream';
import type { BlobStore } from '../../storage/blob-store.js';
import { ApiError } from '../errors.js';
import type { HeaderMap } from '../http/types.js';
import type { UploadPort } from '../api/deps.js';
import type { InputPort, InputRequest, ProbedInput } from '../jobs/input-port.js';
import { ClientInputError } from '../input/errors.js';
import { checksFull } from '../input/media-checks.js';
import type { InputResolver } from '../input/resolve-input.js';
import { receiveUpload } from '../input/multipart.js';
import type { Logger } from '../../domain/logger.js';

/** Maps input problems to the HTTP errors of the API (400, or 413 when too large), naming the field. */
function toApiError(error: unknown, field?: string, headers?: Record<string, string>): unknown {
  if (!(error instanceof ClientInputError)) return checksFull(error);
  const details = field ? [{ field: `body.${field}`, message: error.message }] : undefined;
  return new ApiError(error.httpStatus, error.code, error.message, details, headers);
}

/** {@link InputPort} on top of the {@link InputResolver}; `maxBytesOption` names the option that sets `maxBytes`. */
export class ResolverInputPort implements InputPort<ProbedInput> {
  constructor(
    private readonly resolver: InputResolver,
    private readonly maxBytes: number,
    private readonly maxBytesOption?: string,
  ) {}

  async resolve(request: InputRequest): Promise<ProbedInput> {
    try {
      const media = await this.resolver.resolve(request.url, request.owner, {
        kind: request.kind,
        maxBytes: this.maxBytes,
        maxBytesOption: this.maxBytesOption,
        allowedContainers: request.allowedContainers,
        maxDurationSec: request.maxDurationSec,
        maxDurationOption: request.maxDurationOption,
        signal: request.signal,
      });
      return { blob: media.blob, durationSec: media.durationSec, scratch: media.scratch, probe: media.probe };
    } catch (error) {
      throw toApiError(error, request.field);
    }
  }
}

/** {@link UploadPort} on top of {@link receiveUpload}; `maxBytesOption` names the option that sets `maxBytes`. */
export class MultipartUploadPort implements UploadPort {
  constructor(
    private readonly blobs: BlobStore,
    private readonly maxBytes: number,
    private readonly retentionMs: number,
    private readonly logger: Logger,
    private readonly maxBytesOption?: string,
  ) {}

  async receive(body: Readable, headers: HeaderMap, owner: string) {
    const first = (name: string) => {
      const value = headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    try {
      const upload = await receiveUpload(
        body,
        { 'content-type': first('content-type'), 'content-length': first('content-length') },
        this.blobs,
        { owner, maxBytes: this.maxBytes, maxBytesOption: this.maxBytesOption, retentionMs: this.retentionMs, logger: this.logger },
      );
      // Retention counts from the moment the file was stored, the same instant GET /v1/uploads/:id reports.
      const info = await this.blobs.stat(upload.blob.id);
      const createdAt = info?.createdAt ?? new Date().toISOString();
      const expiresAt = new Date(Date.parse(createdAt) + this.retentionMs).toISOString();
      await this.blobs.setExpiry(upload.blob.id, expiresAt);
      return { blob: upload.blob, fileName: upload.fileName, sha256: upload.sha256, createdAt, expiresAt, fields: upload.fields };
    } catch (error) {
      // The rest of a rejected upload is not worth reading: ask the client to drop the connection.
      throw toApiError(error, 'file', { connection: 'close' });
    }
  }
}
