import type { Readable } from 'node:stream';
import type { BlobRef } from '../domain/job.js';

/** Metadata stored beside a blob. */
export interface BlobMeta {
  contentType: string;
  /** Owner hash (API key hash) or `system` for service assets such as avatars. */
  owner: string;
  /** ISO timestamp after which the retention sweeper deletes the blob; absent = keep. */
  expiresAt?: string;
  /** Original file name, when known (uploads). */
  fileName?: string;
}

/** A stored blob with its metadata, as returned by {@link BlobStore.stat}. */
export interface BlobInfo extends BlobRef {
  meta: BlobMeta;
  createdAt: string;
}

/** Thrown by {@link BlobStore.put} when the stream exceeds `maxBytes`. */
export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`file exceeds the limit of ${limit} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

/** Thrown by {@link BlobStore.put} when a blob with the requested `id` exists already (e.g. another process stored it first). */
export class BlobExistsError extends Error {
  constructor(readonly id: string) {
    super(`blob ${id} already exists`);
    this.name = 'BlobExistsError';
  }
}

/** What {@link BlobStore.removeLeftovers} did. */
export interface LeftoverReport {
  /** How many abandoned entries were removed. */
  removed: number;
  /** Entries that could not be removed, with why. */
  failed: { name: string; error: string }[];
}

/**
 * What a caller may rely on beyond the core methods, as tus-node-server's `DataStore.extensions`:
 *
 * - `localPath`: {@link BlobStore.localPath} exists and returns a file on this machine's disk (engines may read it in place).
 * - `range`: {@link BlobStore.open} serves byte ranges without reading the bytes before the range.
 * - `presignedGet`: {@link BlobStore.presignGet} exists and returns an expiring URL served by the store itself, so
 *   downloads bypass this process.
 * - `exclusiveCreate`: a put with a taken `id` always fails with {@link BlobExistsError}, even when two processes race;
 *   without it a store checks first and the later of two simultaneous puts of one id may replace the earlier.
 * - `putFile`: {@link BlobStore.putFile} exists and stores a file of this machine without streaming its bytes
 *   through this process (a hard link or a kernel copy).
 */
export type BlobCapability = 'localPath' | 'range' | 'presignedGet' | 'exclusiveCreate' | 'putFile';

/** Per-link options of {@link BlobStore.presignGet}. */
export interface PresignOptions {
  /** Lifetime of the link in ms (stores may clamp it, S3 to 7 days). */
  expiresInMs: number;
  /** `Content-Disposition` the store answers with (e.g. `inline; filename="clip.mp4"`). */
  contentDisposition?: string;
  /** `Content-Type` the store answers with (default: the stored one). */
  contentType?: string;
}

/**
 * Where media files live: inputs copied at job creation, uploads, results, avatar assets.
 * Modelled on tus-node-server's DataStore: a small interface, a filesystem default, and a list of
 * {@link BlobCapability | capabilities} saying which optional parts a store has.
 */
export interface BlobStore {
  /** What this store can do beyond the required methods. */
  readonly capabilities: ReadonlySet<BlobCapability>;
  /**
   * Streams `source` into a new blob. With `maxBytes`, rejects with {@link BlobTooLargeError}
   * as soon as more bytes arrive, and leaves nothing behind. With an `id` that is taken, rejects with
   * {@link BlobExistsError}. Errors of `source` (e.g. a file that does not exist) reject the call, whenever
   * they happen, and `source` is destroyed on any failure.
   */
  put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef>;
  /**
   * With the `putFile` capability only: stores the file at `path` (on this machine) as a new blob, as {@link put}
   * would with a stream of it, without passing its bytes through this process; the file is left in place. With an
   * `id` that is taken, rejects with {@link BlobExistsError}; a missing file rejects; nothing is left on failure.
   */
  putFile?(path: string, meta: BlobMeta, options?: { id?: string }): Promise<BlobRef>;
  /** Metadata, or `undefined` when missing/deleted. */
  stat(id: string): Promise<BlobInfo | undefined>;
  /**
   * With the `localPath` capability only: a file on this machine holding the blob (engines and ffmpeg read it in
   * place), or `undefined` when missing. Without it, callers copy the blob with `open` (see `blob-files.ts`).
   */
  localPath?(id: string): Promise<string | undefined>;
  /**
   * With the `presignedGet` capability only: an expiring URL that the store itself serves (GET, range requests
   * included), so the bytes never pass through this process. Does not check that the blob exists.
   */
  presignGet?(id: string, options: PresignOptions): Promise<string>;
  /** Reads the blob, optionally a byte range (inclusive `end`). */
  open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined>;
  /** Deletes the blob; no error when missing. */
  delete(id: string): Promise<void>;
  /** Changes the expiry (e.g. results get `completedAt + retention`). */
  setExpiry(id: string, expiresAt: string | undefined): Promise<void>;
  /** Ids of blobs whose `expiresAt` is at or before `now`. */
  expired(now: Date): Promise<string[]>;
  /**
   * Optional: removes what writes and deletes interrupted by a crash left behind (never another live
   * process's work). Called once at start-up; never rejects.
   */
  removeLeftovers?(): Promise<LeftoverReport>;
  /** Optional: releases connections (an S3 client's sockets). Called when the instance that made the store closes. */
  close?(): void | Promise<void>;
}
