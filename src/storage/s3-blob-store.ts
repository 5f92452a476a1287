import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { s3Sdk, type S3Sdk } from './backend-sdks.js';
import type { BlobRef } from '../domain/job.js';
import { silentLogger, type Logger } from '../domain/logger.js';
import {
  BlobExistsError,
  type BlobCapability,
  type BlobInfo,
  type BlobMeta,
  type BlobStore,
  type LeftoverReport,
  type PresignOptions,
} from './blob-store.js';
import { isBlobId, newBlobId } from './blob-id.js';
import { ByteCounter } from './byte-counter.js';
import { StoreUnavailableError } from './store-unavailable-error.js';
import { S3Layout, decodeMeta, encodeMeta } from './s3-layout.js';

/** The smallest part S3 accepts (except the last): 5 MiB. */
const MIN_PART_BYTES = 5 * 1024 * 1024;
/** The longest lifetime of a SigV4 presigned URL: 7 days. */
const MAX_PRESIGN_SEC = 7 * 24 * 3600;

/** Where the blobs live: bucket, prefix, endpoint and credentials (the middleware's `s3` option). */
export interface S3Location {
  /** The bucket (must exist). */
  bucket: string;
  /** Key prefix, so several deployments share a bucket, e.g. `virtual-anchor/`. Default `''`. */
  prefix?: string;
  /** Region. Default: the SDK's (`AWS_REGION`, the profile), else `us-east-1`. */
  region?: string;
  /** Endpoint of an S3-compatible store (MinIO, R2, Ceph, s3rver), e.g. `http://127.0.0.1:9000`. Default: AWS. */
  endpoint?: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), as most S3-compatible stores need. Default false. */
  forcePathStyle?: boolean;
  /** Static credentials. Default: the SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profile, IMDS…). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** Options of {@link S3BlobStore}. */
export interface S3BlobStoreOptions extends S3Location {
  /** Part size of multipart uploads in bytes (at least 5 MiB). Default 5 MiB. */
  partSizeBytes?: number;
  /**
   * Parts uploaded at once per put. Memory per put is a few parts, whatever the file's size (measured: 16–26 MB with
   * 5 MiB parts and `queueSize` 1, for a 48 MiB file); each extra part in flight adds one part. Default 2.
   */
  queueSize?: number;
  /** `removeLeftovers` aborts multipart uploads begun longer ago than this. Default 24 h. */
  staleUploadMs?: number;
  /** Where failures to clean up after a failed put are reported. Default: nowhere. */
  logger?: Logger;
  /** A ready client to use instead of one built from the options above (its owner closes it). */
  client?: S3Client;
}

/** True for the "no such key/object" answers of HEAD and GET. */
function isMissing(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}

/** Socket-level failures: the store cannot be reached or dropped the connection. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

/** True for failures of the store rather than of the request: no answer (network error, timeout) or a 5xx. */
function unavailable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500;
  return NETWORK_CODES.has(e?.code ?? '') || e?.name === 'TimeoutError' || e?.name === 'RequestTimeout';
}

function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string };
  return e?.code ?? e?.name ?? String(error);
}

const UNAVAILABLE_MIDDLEWARE = 'virtualAnchorStoreUnavailable';

/**
 * Adds (once) a middleware to the client that turns failures of the store into {@link StoreUnavailableError}, so
 * the HTTP layer answers 503 and the job runner reports the store; it sees every request, lib-storage's included.
 */
function markUnavailable(client: S3Client): void {
  if (client.middlewareStack.identify().some((entry) => entry.startsWith(UNAVAILABLE_MIDDLEWARE))) return;
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (!unavailable(error)) throw error;
        throw new StoreUnavailableError(`the S3 blob store did not answer (${describe(error)})`, { cause: error });
      }
    },
    { step: 'initialize', name: UNAVAILABLE_MIDDLEWARE },
  );
}

function checkExpiry(expiresAt: string | undefined): void {
  if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt))) throw new RangeError(`invalid expiresAt: ${expiresAt}`);
}

/**
 * A {@link BlobStore} on any S3-compatible object store (AWS S3, MinIO, R2, Ceph, s3rver), through
 * `@aws-sdk/client-s3`. Nothing is kept on local disk, so processes on different machines share it.
 *
 * - put streams through `@aws-sdk/lib-storage`'s `Upload`: one PutObject for small files, a multipart upload of
 *   `partSizeBytes` parts otherwise, with at most `queueSize` parts in memory. Passing `maxBytes` fails the put as
 *   soon as more arrive; a failed multipart upload is aborted, so nothing is left behind.
 * - A taken `id` is detected with HeadObject before the put (S3-compatible stores do not all honour a conditional
 *   put): two processes putting one id at the same instant may both succeed, the later object replacing the earlier.
 *   The only callers giving ids (avatar assets) put identical bytes under an id, so that race is harmless; the store
 *   does not declare `exclusiveCreate`.
 * - Expiry lives in the object's metadata and, as an index for retention, in an empty marker object under
 *   `expiry/<hour>/` (see {@link S3Layout}); {@link S3BlobStore.expired} lists only hour folders that have begun and
 *   checks each due marker against its object, removing markers left stale by a crash.
 * - Links are presigned GET URLs served by the object store (`presignedGet`), ranges are GetObject ranges.
 */
export class S3BlobStore implements BlobStore {
  /** Ranges and presigned links; no local files; ids are checked, not taken atomically. */
  readonly capabilities: ReadonlySet<BlobCapability> = new Set<BlobCapability>(['range', 'presignedGet']);
  /** The S3 client (a middleware added to its stack sees every request). */
  readonly client: S3Client;
  readonly #bucket: string;
  readonly #layout: S3Layout;
  readonly #partSize: number;
  readonly #queueSize: number;
  readonly #staleUploadMs: number;
  readonly #ownsClient: boolean;
  readonly #logger: Logger;
  /** The AWS SDK's packages, loaded by the first store built (see backend-sdks.ts). */
  readonly #sdk: S3Sdk = s3Sdk();

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) throw new RangeError('S3BlobStore needs a bucket');
    const config: S3ClientConfig = {
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      // A copy: the SDK writes into the credentials object it is given.
      credentials: options.credentials && { ...options.credentials },
      // Keep a failing store from holding a request for minutes: 2 retries, then the error; 5 s to connect, 30 s of silence.
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    };
    this.client = options.client ?? new this.#sdk.client.S3Client(config);
    this.#ownsClient = !options.client;
    markUnavailable(this.client);
    this.#logger = options.logger ?? silentLogger;
    this.#bucket = options.bucket;
    this.#layout = new S3Layout(options.prefix ?? '');
    this.#partSize = Math.max(MIN_PART_BYTES, options.partSizeBytes ?? MIN_PART_BYTES);
    this.#queueSize = Math.max(1, options.queueSize ?? 2);
    this.#staleUploadMs = options.staleUploadMs ?? 24 * 3_600_000;
  }

  /**
   * {@inheritDoc BlobStore.put} `options.id` must match `/^[A-Za-z0-9_-]{8,128}$/`; otherwise a random id is made.
   * Requests: HeadObject (only with an `id`), PutObject of the marker (only with an expiry), then one PutObject or
   * 2 + ⌈size / partSize⌉ multipart requests.
   */
  async put(source: Readable, meta: BlobMeta, options: { maxBytes?: number; id?: string } = {}): Promise<BlobRef> {
    // Listen at once: a source may fail before the upload reads it, and an unheard `error` event is fatal.
    let sourceError: unknown;
    const onSourceError = (error: unknown) => {
      sourceError ??= error;
    };
    source.on('error', onSourceError);
    let marker: string | undefined;
    try {
      const id = options.id ?? newBlobId();
      if (!isBlobId(id)) throw new RangeError(`invalid blob id: ${JSON.stringify(id)}`);
      checkExpiry(meta.expiresAt);
      if (options.id !== undefined && (await this.#head(id))) throw new BlobExistsError(id);
      if (sourceError !== undefined) throw sourceError;
      // The marker first: a crash after the upload then still leaves the blob on the retention index.
      if (meta.expiresAt !== undefined) {
        marker = this.#layout.marker(id, meta.expiresAt);
        await this.#putMarker(marker);
      }
      const size = await this.#upload(source, id, meta, options.maxBytes);
      return { id, contentType: meta.contentType, size };
    } catch (error) {
      source.destroy();
      if (marker) await this.#dropMarker(marker, 'put failed');
      throw sourceError ?? error;
    } finally {
      source.off('error', onSourceError);
    }
  }

  /** Streams `source` into `blobs/<id>`; resolves with the byte count. A failed multipart upload is aborted by `Upload`. */
  async #upload(source: Readable, id: string, meta: BlobMeta, maxBytes: number | undefined): Promise<number> {
    const counter = new ByteCounter(maxBytes);
    const upload = new this.#sdk.storage.Upload({
      client: this.client,
      params: {
        Bucket: this.#bucket,
        Key: this.#layout.blob(id),
        Body: counter,
        ContentType: meta.contentType,
        Metadata: encodeMeta(meta, new Date().toISOString()),
      },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      leavePartsOnError: false,
    });
    // The source fails (or passes maxBytes): the counter is destroyed with that error and the upload, reading it,
    // fails and aborts. The upload fails (store down): the counter is destroyed so the source is not left paused.
    const piping = pipeline(source, counter);
    const uploading = upload.done().catch((error: unknown) => {
      counter.destroy(error instanceof Error ? error : new Error(String(error)));
      throw error;
    });
    const [piped, uploaded] = await Promise.allSettled([piping, uploading]);
    // Both failed: the body's error says why (a source error or maxBytes; the upload's own failure echoes in it).
    if (piped.status === 'rejected' && uploaded.status === 'rejected') throw piped.reason;
    if (uploaded.status === 'rejected') throw uploaded.reason;
    if (piped.status === 'rejected') {
      // The upload finished although its body failed (a failure after the last byte was read): remove it.
      await this.#deleteKey(this.#layout.blob(id));
      throw piped.reason;
    }
    return counter.bytes;
  }

  /** {@inheritDoc BlobStore.stat} One HeadObject. */
  async stat(id: string): Promise<BlobInfo | undefined> {
    const head = await this.#head(id);
    if (!head) return undefined;
    const { meta, createdAt } = decodeMeta(head.Metadata, head.ContentType, head.LastModified);
    return { id, contentType: meta.contentType, size: head.ContentLength ?? 0, meta, createdAt };
  }

  /**
   * {@inheritDoc BlobStore.open} One GetObject. An `end` past the last byte is clamped to it; a range starting past
   * the end (or with a negative or non-integer bound) throws a RangeError.
   */
  async open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    if (!isBlobId(id)) return undefined;
    if (range && (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.start > range.end)) {
      throw new RangeError(`invalid range ${range.start}-${range.end}`);
    }
    try {
      const answer = await this.client.send(
        new this.#sdk.client.GetObjectCommand({
          Bucket: this.#bucket,
          Key: this.#layout.blob(id),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) return undefined;
      if ((error as { name?: string }).name === 'InvalidRange') {
        throw new RangeError(`range ${range?.start}-${range?.end} does not fit blob ${id}`, { cause: error });
      }
      throw error;
    }
  }

  /** {@inheritDoc BlobStore.delete} HeadObject (to find the marker), DeleteObject of the blob, and of its marker. */
  async delete(id: string): Promise<void> {
    const head = await this.#head(id);
    if (!head) return;
    await this.#deleteKey(this.#layout.blob(id));
    const expiresAt = head.Metadata?.['expires-at'];
    if (expiresAt !== undefined && !Number.isNaN(Date.parse(expiresAt))) await this.#deleteKey(this.#layout.marker(id, expiresAt));
  }

  /**
   * {@inheritDoc BlobStore.setExpiry} Does nothing when the blob is missing. HeadObject, PutObject of the new
   * marker, CopyObject of the blob onto itself with the new metadata (a server-side copy: objects up to 5 GiB), and
   * DeleteObject of the old marker.
   */
  async setExpiry(id: string, expiresAt: string | undefined): Promise<void> {
    checkExpiry(expiresAt);
    const head = await this.#head(id);
    if (!head) return;
    const { meta, createdAt } = decodeMeta(head.Metadata, head.ContentType, head.LastModified);
    if (meta.expiresAt === expiresAt) return;
    const next = this.#markerOf(id, expiresAt);
    if (next) await this.#putMarker(next);
    const { expiresAt: _previous, ...rest } = meta;
    const key = this.#layout.blob(id);
    try {
      await this.client.send(
        new this.#sdk.client.CopyObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          CopySource: `${this.#bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
          MetadataDirective: 'REPLACE',
          ContentType: meta.contentType,
          Metadata: encodeMeta(expiresAt === undefined ? rest : { ...rest, expiresAt }, createdAt),
        }),
      );
    } catch (error) {
      if (next) await this.#dropMarker(next, 'setExpiry failed');
      if (isMissing(error)) return; // deleted meanwhile
      throw error;
    }
    const previous = this.#markerOf(id, meta.expiresAt);
    if (previous && previous !== next) await this.#deleteKey(previous);
  }

  /**
   * {@inheritDoc BlobStore.expired} Lists the hour folders of the markers, then the markers of each hour that has
   * begun; each due marker is checked with HeadObject against its blob (markers of deleted blobs and superseded
   * expiries are removed). Requests per sweep: 1 + (due hours) + (due markers), whatever the bucket holds.
   */
  async expired(now: Date): Promise<string[]> {
    const nowMs = now.getTime();
    const last = this.#layout.hourFolder(nowMs);
    const hours = (await this.#list(this.#layout.expiryRoot, '/')).prefixes.filter((folder) => folder <= last).sort();
    const due: string[] = [];
    for (const hour of hours) {
      for (const key of (await this.#list(hour)).keys) {
        const marker = this.#layout.parseMarker(key);
        if (!marker || marker.expiresAtMs > nowMs) continue;
        const head = await this.#head(marker.id);
        const actual = head?.Metadata?.['expires-at'];
        if (head && actual !== undefined && Date.parse(actual) <= nowMs) due.push(marker.id);
        if (!head || actual === undefined || Date.parse(actual) !== marker.expiresAtMs) await this.#deleteKey(key);
      }
    }
    return [...new Set(due)];
  }

  /**
   * {@inheritDoc BlobStore.removeLeftovers} Aborts multipart uploads under the prefix begun more than
   * `staleUploadMs` ago (a process that died mid-upload). Stores without ListMultipartUploads (s3rver) report it
   * as failed; on AWS an `AbortIncompleteMultipartUpload` lifecycle rule does the same.
   */
  async removeLeftovers(): Promise<LeftoverReport> {
    const report: LeftoverReport = { removed: 0, failed: [] };
    const before = Date.now() - this.#staleUploadMs;
    try {
      let keyMarker: string | undefined;
      let uploadIdMarker: string | undefined;
      do {
        const page = await this.client.send(
          new this.#sdk.client.ListMultipartUploadsCommand({ Bucket: this.#bucket, Prefix: this.#layout.blob(''), KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || (upload.Initiated?.getTime() ?? 0) > before) continue;
          try {
            await this.client.send(new this.#sdk.client.AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: upload.Key, UploadId: upload.UploadId }));
            report.removed++;
          } catch (error) {
            report.failed.push({ name: upload.Key, error: String(error) });
          }
        }
        keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
        uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
      } while (keyMarker);
    } catch (error) {
      report.failed.push({ name: 'multipart uploads', error: String(error) });
    }
    return report;
  }

  /**
   * {@inheritDoc BlobStore.presignGet} Signed locally (no request), valid for `expiresInMs` rounded up to seconds,
   * at most 7 days (SigV4's limit).
   */
  async presignGet(id: string, options: PresignOptions): Promise<string> {
    const expiresIn = Math.min(MAX_PRESIGN_SEC, Math.max(1, Math.ceil(options.expiresInMs / 1000)));
    const command = new this.#sdk.client.GetObjectCommand({
      Bucket: this.#bucket,
      Key: this.#layout.blob(id),
      ResponseContentDisposition: options.contentDisposition,
      ResponseContentType: options.contentType,
    });
    try {
      return await this.#sdk.presigner.getSignedUrl(this.client, command, { expiresIn });
    } catch (error) {
      // Signing needs credentials; a provider that fails (instance metadata unreachable, none configured) is the
      // store being unusable for now, answered 503 like an unreachable store.
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(`could not sign an S3 link (${describe(error)}: ${String((error as Error)?.message ?? error)})`, { cause: error });
    }
  }

  /** Closes the client's connections (only a client this store made). */
  close(): void {
    if (this.#ownsClient) this.client.destroy();
  }

  async #head(id: string) {
    if (!isBlobId(id)) return undefined;
    try {
      return await this.client.send(new this.#sdk.client.HeadObjectCommand({ Bucket: this.#bucket, Key: this.#layout.blob(id) }));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  #markerOf(id: string, expiresAt: string | undefined): string | undefined {
    return expiresAt === undefined || Number.isNaN(Date.parse(expiresAt)) ? undefined : this.#layout.marker(id, expiresAt);
  }

  async #putMarker(key: string): Promise<void> {
    await this.client.send(new this.#sdk.client.PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: new Uint8Array(0), ContentLength: 0 }));
  }

  /** Deletes a marker while cleaning up after a failure; a failure here is logged (expired() drops the orphan later). */
  async #dropMarker(key: string, why: string): Promise<void> {
    try {
      await this.#deleteKey(key);
    } catch (error) {
      this.#logger.warn('could not delete an expiry marker; the retention sweep will', { key, why, error: String(error) });
    }
  }

  async #deleteKey(key: string): Promise<void> {
    await this.client.send(new this.#sdk.client.DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  /** Every key (and, with a delimiter, common prefix) under `prefix`, page by page. */
  async #list(prefix: string, delimiter?: string): Promise<{ keys: string[]; prefixes: string[] }> {
    const keys: string[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new this.#sdk.client.ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      for (const common of page.CommonPrefixes ?? []) if (common.Prefix) prefixes.push(common.Prefix);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return { keys, prefixes };
  }
}
