import type { BlobRef } from '../job.js';
import { silentLogger, type Logger } from '../logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import {
  MediaProbeError,
  MediaProcessError,
  measureAudioDuration,
  probeMedia,
  type MediaBinaries,
  type MediaProbe,
} from '../../inference/media/index.js';
import { InputError } from './errors.js';
import { checkDecodedDuration, checkMedia, decodeCapSec, type MediaRules } from './media-rules.js';
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
  /**
   * Deadline of the decode that measures an audio input's real duration (default 60 s; it decodes at most the
   * duration limit, about 5 s of CPU for 20 minutes of Opus). Past it the input is refused with `timeout`.
   */
  decodeTimeoutMs?: number;
  /** Where failures to clean up are reported (default: nowhere). */
  logger?: Logger;
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
   * Audio: the duration in seconds the audio decodes to (never the header's), cut to `maxDurationSec`.
   * Images: 0.
   */
  durationSec: number;
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
 * The file is then probed (content, not name) and checked against {@link MediaRules}; audio is decoded once, in an
 * ffmpeg child process that stops at the duration limit, to learn its real duration: a header can claim anything.
 * That makes two child processes per audio input (ffprobe, ffmpeg) and one per image. When a check fails, a
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
      const path = await this.options.blobs.localPath(blob.id);
      if (path === undefined) throw new InputError('not_found', 'the file disappeared before it could be checked');
      const probe = await this.probe(path, opts);
      checkMedia(probe, opts);
      const durationSec = opts.kind === 'audio' ? await this.decodedDuration(path, opts) : 0;
      return { blob, probe, durationSec, scratch };
    } catch (error) {
      if (scratch) await this.discard(blob.id, error);
      throw error;
    }
  }

  /** Deletes a refused download; a failure to do so is logged (the blob's expiry, if any, removes it later). */
  private async discard(blobId: string, reason: unknown): Promise<void> {
    try {
      await this.options.blobs.delete(blobId);
    } catch (error) {
      (this.options.logger ?? silentLogger).warn('could not delete a refused download', {
        blobId,
        refusedFor: reason instanceof Error ? reason.message : String(reason),
        error: error instanceof Error ? error.message : String(error),
      });
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

  private async probe(path: string, opts: ResolveOptions): Promise<MediaProbe> {
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

  /**
   * Decodes the audio, a little past `maxDurationSec` at most ({@link decodeCapSec}), and checks what it decoded to.
   *
   * @throws {InputError} `too_long`, `not_audio` (nothing decodes) or `timeout` (the decode passed its deadline).
   */
  private async decodedDuration(path: string, opts: ResolveOptions): Promise<number> {
    const timeoutMs = this.options.decodeTimeoutMs ?? 60_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
    try {
      const decodedSec = await measureAudioDuration(path, this.options.binaries, { maxSec: decodeCapSec(opts), signal });
      return checkDecodedDuration(decodedSec, opts);
    } catch (error) {
      if (error instanceof InputError) throw error;
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (deadline.aborted) {
        throw new InputError('timeout', `decoding the audio took longer than ${timeoutMs} ms`, { cause: error });
      }
      // ffmpeg could not be started: not the file's fault.
      if (error instanceof MediaProcessError && error.cause !== undefined) throw error;
      throw new InputError('not_audio', 'the audio of the file could not be decoded', { cause: error });
    }
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}
