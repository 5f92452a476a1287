import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { PassThrough, finished, type Readable } from 'node:stream';
import busboy, { type Busboy, type FileInfo } from 'busboy';
import type { BlobRef } from '../../domain/job.js';
import { BlobTooLargeError, type BlobStore } from '../../storage/blob-store.js';
import { UploadError } from './errors.js';
import { cleanMediaType } from './media-type.js';
import { tooLargeText } from './limit-text.js';
import { truncateUtf8 } from '../file-name.js';
import { consoleLogger, type Logger } from '../../domain/logger.js';

/** The request headers {@link receiveUpload} reads. */
export interface UploadHeaders {
  'content-type'?: string;
  'content-length'?: string;
}

/** Options of {@link receiveUpload}. */
export interface ReceiveUploadOptions {
  /** Owner recorded on the blob (the API key's hash). */
  owner: string;
  /** Largest accepted file in bytes. */
  maxBytes: number;
  /** The option that sets `maxBytes` (e.g. `limits.maxUploadBytes`), named in the `too_large` message. */
  maxBytesOption?: string;
  /** How long the upload is kept; sets the blob's `expiresAt`. */
  retentionMs: number;
  /** Clock, for tests. */
  now?: () => Date;
  /** Where a failure to delete a rejected upload's blob is reported. Default: the console. */
  logger?: Logger;
}

/** A stored upload. */
export interface ReceivedUpload {
  blob: BlobRef;
  /** The client's file name (base name only, control characters removed, at most 255 bytes of UTF-8). */
  fileName: string;
  /** The part's media type, or `application/octet-stream`. */
  contentType: string;
  /** SHA-256 of the file's bytes (hex), computed while they streamed into the store. */
  sha256: string;
  /** The body's text fields (the first value of each name; at most 20 fields of 64 KiB). */
  fields: Record<string, string>;
}

/** Room for boundaries and part headers when judging a declared Content-Length against `maxBytes`. */
const MULTIPART_OVERHEAD = 64 * 1024;

/**
 * Receives a `multipart/form-data` body holding exactly one file part named `file`, streaming the file straight
 * into the {@link BlobStore} (never buffered whole). Other (non-file) fields are ignored.
 *
 * Whatever happens, the request is consumed (the rest is discarded) so that the caller can answer, and nothing is
 * left in the store on failure. Answer failures with `Connection: close` to spare a client still sending a large body.
 *
 * @throws {UploadError} `not_multipart` (wrong content type, malformed or cut-off body), `missing_file` (no file
 *   part named `file`, or an empty one), `too_many_files`, `too_large` (declared length clearly over the limit, or
 *   more than `maxBytes` bytes of file). Store failures are rethrown as they are.
 */
export function receiveUpload(
  stream: Readable,
  headers: UploadHeaders,
  blobs: BlobStore,
  opts: ReceiveUploadOptions,
): Promise<ReceivedUpload> {
  let parser: Busboy;
  try {
    parser = openParser(headers, opts.maxBytes, opts.maxBytesOption);
  } catch (error) {
    stream.resume();
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    let failure: UploadError | undefined;
    let upload: Promise<ReceivedUpload> | undefined;
    let settled = false;
    const fields: Record<string, string> = {};
    const fail = (error: UploadError): void => {
      failure ??= error;
    };
    const settle = (): void => {
      if (settled) return;
      settled = true;
      stream.unpipe(parser);
      if (!parser.destroyed) parser.destroy();
      stream.resume(); // discard whatever the client still sends
      conclude(upload, failure, blobs, opts.logger ?? consoleLogger, opts.maxBytesOption).then((received) => resolve({ ...received, fields }), reject);
    };

    parser.on('file', (name: string, file: Readable, info: FileInfo) => {
      if (name !== 'file' || upload) {
        file.resume();
        if (name !== 'file') fail(new UploadError('missing_file', 'the file part must be named "file"'));
        return;
      }
      upload = storeFile(file, info, blobs, opts);
      upload.catch(settle); // a failed store (e.g. too large) answers at once, without reading the rest
    });
    parser.on('field', (name: string, value: string) => {
      if (!Object.hasOwn(fields, name)) fields[name] = value;
    });
    parser.on('filesLimit', () => fail(new UploadError('too_many_files', 'send exactly one file part, named "file"')));
    parser.on('error', (error: Error) => {
      fail(new UploadError('not_multipart', `malformed multipart body: ${error.message}`));
      // Not every parser error is followed by 'close' (e.g. a malformed part header): answer now.
      settle();
    });
    parser.on('close', settle);
    finished(stream, (error) => {
      if (error && !parser.destroyed) parser.destroy(new Error('the request ended before the body was complete'));
    });
    stream.pipe(parser);
  });
}

function openParser(headers: UploadHeaders, maxBytes: number, maxBytesOption: string | undefined): Busboy {
  const type = headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type.trim())) {
    throw new UploadError('not_multipart', 'expected a multipart/form-data body with a file part named "file"');
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD) {
    throw new UploadError('too_large', tooLargeText('the request body', declared, maxBytes, maxBytesOption));
  }
  try {
    return busboy({
      headers: { 'content-type': type },
      // Browsers send file names as raw UTF-8 bytes; busboy's default would read them as latin1.
      defParamCharset: 'utf8',
      // fileSize one past the limit, so that a file of exactly maxBytes is not reported as truncated.
      limits: { files: 1, fileSize: maxBytes + 1, fields: 20, fieldSize: 64 * 1024, parts: 40, headerPairs: 100 },
    });
  } catch (error) {
    throw new UploadError('not_multipart', `invalid multipart content type: ${(error as Error).message}`, { cause: error });
  }
}

/** Streams one file part into the store through a pass-through that can fail without stalling busboy. */
async function storeFile(file: Readable, info: FileInfo, blobs: BlobStore, opts: ReceiveUploadOptions): Promise<ReceivedUpload> {
  const body = new PassThrough();
  // The store may attach its listeners only after some async set-up; an early error must wait for it, not crash.
  body.on('error', () => undefined);
  file.on('limit', () => body.destroy(new BlobTooLargeError(opts.maxBytes)));
  file.on('error', (error: Error) => body.destroy(error));
  const digest = createHash('sha256');
  file.on('data', (chunk: Buffer) => digest.update(chunk));
  file.pipe(body);
  const fileName = cleanFileName(info.filename);
  const contentType = cleanMediaType(info.mimeType);
  const expiresAt = new Date((opts.now?.() ?? new Date()).getTime() + opts.retentionMs).toISOString();
  try {
    const blob = await blobs.put(body, { owner: opts.owner, contentType, fileName, expiresAt }, { maxBytes: opts.maxBytes });
    return { blob, fileName, contentType, sha256: digest.digest('hex'), fields: {} };
  } finally {
    // When the store gave up early, keep busboy's stream flowing so that the parser can finish.
    file.unpipe(body);
    file.resume();
  }
}

/** Decides the outcome once the parser is done (or the store failed); deletes the blob on failure. */
async function conclude(
  upload: Promise<ReceivedUpload> | undefined,
  failure: UploadError | undefined,
  blobs: BlobStore,
  logger: Logger,
  maxBytesOption: string | undefined,
): Promise<ReceivedUpload> {
  let received: ReceivedUpload | undefined;
  let storeError: unknown;
  if (upload) {
    try {
      received = await upload;
    } catch (error) {
      storeError = error;
    }
  }
  const error =
    failure ??
    (storeError instanceof BlobTooLargeError
      ? new UploadError('too_large', tooLargeText('the file', undefined, storeError.limit, maxBytesOption), { cause: storeError })
      : storeError) ??
    (received === undefined
      ? new UploadError('missing_file', 'no file part named "file"')
      : received.blob.size === 0
        ? new UploadError('missing_file', 'the file part is empty')
        : undefined);
  if (error === undefined && received) return received;
  if (received) {
    const id = received.blob.id;
    await blobs.delete(id).catch((deleteError: unknown) => {
      // The upload is refused either way; the blob is left for the retention sweeper.
      logger.warn('could not delete a rejected upload', { blob: id, error: String(deleteError) });
    });
  }
  throw error;
}

/** Base name only, control characters removed, cut to 255 bytes of UTF-8 between characters; `upload` when empty. */
function cleanFileName(raw: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const name = basename((raw ?? '').replace(/\\/g, '/')).replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return truncateUtf8(name, 255).trim() || 'upload';
}
