import type { Readable } from 'node:stream';
import type { BlobRef } from '../core/job.js';

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
 * Where media files live: inputs copied at job creation, uploads, results, avatar assets.
 * Modelled on tus-node-server's DataStore: a small interface, a filesystem default.
 */
export interface BlobStore {
  /**
   * Streams `source` into a new blob. With `maxBytes`, rejects with {@link BlobTooLargeError}
   * as soon as more bytes arrive, and leaves nothing behind. With an `id` that is taken, rejects with
   * {@link BlobExistsError}. Errors of `source` (e.g. a file that does not exist) reject the call, whenever
   * they happen, and `source` is destroyed on any failure.
   */
  put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef>;
  /** Metadata, or `undefined` when missing/deleted. */
  stat(id: string): Promise<BlobInfo | undefined>;
  /** A local filesystem path of the blob (engines and ffmpeg read files). */
  localPath(id: string): Promise<string | undefined>;
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
}
