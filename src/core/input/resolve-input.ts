import type { BlobRef } from '../job.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { MediaProbeError, probeMedia, type MediaBinaries, type MediaProbe } from '../../inference/media/index.js';
import { InputError } from './errors.js';
import { checkMedia, type MediaRules } from './media-rules.js';
import { safeFetch } from './safe-fetch.js';
import { parseUploadRef } from './upload-ref.js';

/** Construction options of {@link InputResolver}. */
export interface InputResolverOptions {
  blobs: BlobStore;
  binaries: MediaBinaries;
  /** Lets remote URLs point at loopback/private addresses (tests, development). Default false. */
  allowPrivateAddresses?: boolean;
  /** Deadline of one download, redirects included (default 30 s). */
  fetchTimeoutMs?: number;
  /** Deadline of one ffprobe run (default 30 s). */
  probeTimeoutMs?: number;
  /** Expiry given to downloaded blobs (a safety net should the caller never clean up); none by default. */
  downloadRetentionMs?: number;
  /** Clock, for tests. */
  now?: () => Date;
}

/** Per-call options of {@link InputResolver.resolve}. */
export interface ResolveOptions extends MediaRules {
  /** Largest accepted file in bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

/** A submitted URL turned into a local, probed, accepted file. */
export interface ResolvedMedia {
  blob: BlobRef;
  probe: MediaProbe;
  /**
   * True when the resolver downloaded the file into a new blob, which the caller now owns (and deletes when it no
   * longer needs it); false when `blob` is the owner's own upload, which must not be deleted by the caller.
   */
  scratch: boolean;
}

/**
 * Turns a submitted input URL into a local file the engines can read, then checks what it is.
 *
 * - An upload link of this service (path ending in `/v1/uploads/<blobId>`, or `upload://<blobId>`) is looked up in
 *   the {@link BlobStore}; it resolves only for the key that uploaded it and only before it expires.
 * - Any other URL must be http(s) and is downloaded with {@link safeFetch} into a new blob owned by `owner`.
 *
 * The file is then probed (content, not name) and checked against {@link MediaRules}. When a check fails, a
 * downloaded blob is deleted again; an upload is never deleted.
 */
export class InputResolver {
  constructor(private readonly options: InputResolverOptions) {}

  /**
   * @throws {InputError} with one of its codes; the core answers 400 (413 for `too_large`).
   */
  async resolve(url: string, owner: string, opts: ResolveOptions): Promise<ResolvedMedia> {
    const ref = parseUploadRef(url);
    const blob = ref.kind === 'upload' ? await this.upload(ref.blobId, owner, opts.maxBytes) : await this.download(url, owner, opts);
    const scratch = ref.kind === 'remote';
    try {
      const probe = await this.probe(blob, opts);
      checkMedia(probe, opts);
      return { blob, probe, scratch };
    } catch (error) {
      if (scratch) await this.options.blobs.delete(blob.id).catch(() => undefined);
      throw error;
    }
  }

  private async upload(blobId: string | undefined, owner: string, maxBytes: number): Promise<BlobRef> {
    const info = blobId === undefined ? undefined : await this.options.blobs.stat(blobId);
    const expired = info?.meta.expiresAt !== undefined && Date.parse(info.meta.expiresAt) <= this.now().getTime();
    if (!info || info.meta.owner !== owner || expired) {
      throw new InputError('not_found', 'no such upload for this key (it may have expired)');
    }
    if (info.size > maxBytes) throw new InputError('too_large', `the file is larger than ${maxBytes} bytes`);
    return { id: info.id, contentType: info.contentType, size: info.size };
  }

  private download(url: string, owner: string, opts: ResolveOptions): Promise<BlobRef> {
    const retention = this.options.downloadRetentionMs;
    return safeFetch(url, this.options.blobs, {
      maxBytes: opts.maxBytes,
      meta: {
        owner,
        ...(retention === undefined ? {} : { expiresAt: new Date(this.now().getTime() + retention).toISOString() }),
      },
      timeoutMs: this.options.fetchTimeoutMs,
      allowPrivateAddresses: this.options.allowPrivateAddresses,
      signal: opts.signal,
    });
  }

  private async probe(blob: BlobRef, opts: ResolveOptions): Promise<MediaProbe> {
    const path = await this.options.blobs.localPath(blob.id);
    if (path === undefined) throw new InputError('not_found', 'the file disappeared before it could be checked');
    try {
      return await probeMedia(path, this.options.binaries, { timeoutMs: this.options.probeTimeoutMs, signal: opts.signal });
    } catch (error) {
      if (!(error instanceof MediaProbeError)) throw error;
      const code = opts.kind === 'audio' ? 'not_audio' : 'not_image';
      throw new InputError(code, `the file is not a readable ${opts.kind === 'audio' ? 'audio or video' : 'image'} file`, {
        cause: error,
      });
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
