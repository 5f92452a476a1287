import type { BlobRef } from '../../domain/job.js';
import { silentLogger, type Logger } from '../../domain/logger.js';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile, localPathReader } from '../../storage/blob-files.js';
import { FsBlobStore } from '../../storage/fs-blob-store.js';
import { OwnedDirs } from '../../storage/owned-dirs.js';
import {
  frameTooLargeMessage,
  MediaProbeError,
  MediaProcessError,
  measureAudioDuration,
  probeMedia,
  refusedFrameSize,
  type MediaBinaries,
  type MediaProbe,
} from '../../inference/media/index.js';
import { checkImageFile, ImageCheckError, MAX_IMAGE_PIXELS } from '../../inference/image/image-header.js';
import { InputError } from './errors.js';
import { checkDecodedDuration, checkMedia, decodeCapSec, type MediaRules } from './media-rules.js';
import { safeFetch } from './safe-fetch.js';
import { tooLargeText } from './limit-text.js';
import { parseUploadRef } from './upload-ref.js';
import type { FairQueue } from '../../queue/fair-queue.js';

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
  /**
   * Where inputs are checked when the blob store has no local files (the `localPath` capability): a scratch folder
   * per input, removed afterwards. Default: `virtual-anchor-input` in the OS temp folder.
   */
  scratchDirs?: OwnedDirs;
  /**
   * Where a file's checks wait for their turn, by key (see `mediaCheckQueue`); a full queue rejects with its
   * `QueueFullError`. None: checks start at once.
   */
  checks?: FairQueue;
  /** Clock, for tests. */
  now?: () => Date;
}

/** Per-call options of {@link InputResolver.resolve}. */
export interface ResolveOptions extends MediaRules {
  /** Largest accepted file in bytes. */
  maxBytes: number;
  /** The option that sets `maxBytes` (e.g. `limits.maxDownloadBytes`), named in the `too_large` message. */
  maxBytesOption?: string;
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
 * Turns a submitted input URL into a stored blob, and checks what it is on a local file: the store's own (filesystem
 * store) or, for a store without local files (S3), a copy in a scratch folder (a download is checked there before it
 * is streamed into the store; an upload is copied there once).
 *
 * - An upload link of this service (path ending in `/v1/uploads/<blobId>`, or `upload://<blobId>`) is looked up in
 *   the {@link BlobStore}; it resolves only for the key that uploaded it and only before it expires.
 * - Any other URL must be http(s) and is downloaded with {@link safeFetch} into a new blob owned by `owner`.
 *
 * The file is then probed (content, not name) and checked against {@link MediaRules}; audio is decoded once, in an
 * ffmpeg child process that stops at the duration limit, to learn its real duration: a header can claim anything.
 * That makes two child processes per audio input (ffprobe, ffmpeg) and one per image. An image's header is then
 * read by the decoder's rules, so no image too large to decode is accepted ({@link checkImageInput}). When a check
 * fails, a downloaded blob is deleted again; an upload is never deleted.
 */
export class InputResolver {
  private defaultScratch?: OwnedDirs;

  constructor(private readonly options: InputResolverOptions) {}

  /**
   * @throws {InputError} with one of its codes; the core answers 400 (413 for `too_large`).
   */
  async resolve(url: string, owner: string, opts: ResolveOptions): Promise<ResolvedMedia> {
    const ref = parseUploadRef(url);
    const local = localPathReader(this.options.blobs);
    if (ref.kind === 'upload') {
      const blob = await this.upload(ref.blobId, owner, opts);
      // A store without local files: the upload is copied once into a scratch folder to be checked.
      const checked = local
        ? await this.checkInTurn(await local(blob.id), owner, opts)
        : await this.inScratch((dir) => blobToLocalFile(this.options.blobs, blob.id, dir, 'input').then((path) => this.checkInTurn(path, owner, opts)));
      return { blob, ...checked, scratch: false };
    }
    if (!local) return this.downloadChecked(url, owner, opts);
    const blob = await this.download(url, this.options.blobs, owner, opts);
    try {
      return { blob, ...(await this.checkInTurn(await local(blob.id), owner, opts)), scratch: true };
    } catch (error) {
      await this.discard(blob.id, error);
      throw error;
    }
  }

  /**
   * For a store without local files (S3): downloads into a filesystem store in a scratch folder, checks the file
   * there, and only then streams it into the blob store. The bytes cross the network once each way and a refused
   * file never reaches the store.
   */
  private downloadChecked(url: string, owner: string, opts: ResolveOptions): Promise<ResolvedMedia> {
    return this.inScratch(async (dir) => {
      const staging = new FsBlobStore(dir);
      const staged = await this.download(url, staging, owner, opts);
      const path = await staging.localPath(staged.id);
      const checked = await this.checkInTurn(path, owner, opts);
      const info = await staging.stat(staged.id);
      if (!path || !info) throw new InputError('not_found', 'the file disappeared before it could be stored');
      const blob = await this.options.blobs.put(createReadStream(path), info.meta);
      return { blob, ...checked, scratch: true };
    });
  }

  /** {@link check} once it is `owner`'s turn ({@link InputResolverOptions.checks}). */
  private checkInTurn(path: string | undefined, owner: string, opts: ResolveOptions): Promise<{ probe: MediaProbe; durationSec: number }> {
    const work = () => this.check(path, opts);
    return this.options.checks ? this.options.checks.run(owner, work, opts.signal) : work();
  }

  /** Probes a local file and checks it against the rules; audio is decoded to learn its real duration. */
  private async check(path: string | undefined, opts: ResolveOptions): Promise<{ probe: MediaProbe; durationSec: number }> {
    if (path === undefined) throw new InputError('not_found', 'the file disappeared before it could be checked');
    const probe = await this.probe(path, opts);
    checkMedia(probe, opts);
    if (opts.kind === 'image') await checkImageInput(path);
    const durationSec = opts.kind === 'audio' ? await this.decodedDuration(path, opts) : 0;
    return { probe, durationSec };
  }

  /** Runs `work` in a fresh scratch folder that is removed afterwards (a crash's leftover goes at the next start). */
  private async inScratch<T>(work: (dir: string) => Promise<T>): Promise<T> {
    const dir = await this.scratchDirs.create('input');
    try {
      return await work(dir);
    } finally {
      await rm(dir, { recursive: true, force: true }).catch((error: unknown) => {
        (this.options.logger ?? silentLogger).warn('could not remove an input scratch folder; the next start will', {
          dir,
          error: String(error),
        });
      });
    }
  }

  private get scratchDirs(): OwnedDirs {
    return (this.defaultScratch ??= this.options.scratchDirs ?? new OwnedDirs(join(tmpdir(), 'virtual-anchor-input')));
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

  private async upload(blobId: string | undefined, owner: string, { maxBytes, maxBytesOption }: ResolveOptions): Promise<BlobRef> {
    const info = blobId === undefined ? undefined : await this.options.blobs.stat(blobId);
    const expired = info?.meta.expiresAt !== undefined && Date.parse(info.meta.expiresAt) <= this.now().getTime();
    if (!info || info.meta.owner !== owner || expired) {
      throw new InputError('not_found', 'no such upload for this key (it may have expired)');
    }
    if (info.size > maxBytes) throw new InputError('too_large', tooLargeText('the uploaded file', info.size, maxBytes, maxBytesOption));
    return { id: info.id, contentType: info.contentType, size: info.size };
  }

  private download(url: string, into: BlobStore, owner: string, opts: ResolveOptions): Promise<BlobRef> {
    const retention = this.options.downloadRetentionMs;
    return safeFetch(url, into, {
      maxBytes: opts.maxBytes,
      maxBytesOption: opts.maxBytesOption,
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
      const code = opts.kind === 'audio' ? 'not_audio' : opts.kind === 'video' ? 'not_video' : 'not_image';
      const what = opts.kind === 'audio' ? 'audio or video' : opts.kind === 'video' ? 'video' : 'image';
      const frame = refusedFrameSize(error);
      if (frame) throw new InputError(code, frameTooLargeMessage('the file', frame.width, frame.height), { cause: error });
      throw new InputError(code, `the file is not a readable ${what} file`, { cause: error });
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

/**
 * An image input (a background, a portrait's `imageUrl`) is decoded later by the canvas: it must be a JPEG, PNG or
 * WebP of at most {@link MAX_IMAGE_PIXELS}, as its header reads by the decoder's own rules (ffprobe's view is not
 * the decoder's, and a small file can declare a huge image).
 * @throws {InputError} `not_image`.
 */
async function checkImageInput(path: string): Promise<void> {
  try {
    await checkImageFile(path, MAX_IMAGE_PIXELS);
  } catch (error) {
    if (error instanceof ImageCheckError) throw new InputError('not_image', error.message, { cause: error });
    throw error;
  }
}
