import { createWriteStream } from 'node:fs';
import { constants } from 'node:fs';
import { copyFile, link, lstat, mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobRef } from '../domain/job.js';
import { BlobExistsError, type BlobCapability, type BlobInfo, type BlobMeta, type BlobStore, type LeftoverReport } from './blob-store.js';
import { isBlobId, newBlobId } from './blob-id.js';
import { ByteCounter } from './byte-counter.js';
import { fsErrorCode } from './fs-error-code.js';
import { OwnedDirs } from './owned-dirs.js';

/** What `meta.json` holds. */
interface StoredMeta {
  size: number;
  createdAt: string;
  meta: BlobMeta;
}

/** How many metadata files {@link FsBlobStore.expired} reads at once. */
const SCAN_BATCH = 64;

/**
 * A {@link BlobStore} on the local filesystem. Layout under `dir`:
 *
 *   blobs/<id>/data        the bytes
 *   blobs/<id>/meta.json   size, createdAt and {@link BlobMeta}
 *   tmp/                   blobs being written or deleted, named after their process (see {@link OwnedDirs})
 *
 * A blob is written into a fresh folder under `tmp/` and renamed into `blobs/` complete with its
 * metadata, so it appears whole or not at all, and a second put with the same id fails with
 * {@link BlobExistsError}. Delete renames it back out before removing it. All state is on disk, so a
 * new instance on the same `dir` (after a restart) sees every blob and expiry. Files are streamed,
 * never held in memory. Entries a crashed process left in `tmp/` go at the next start
 * ({@link FsBlobStore.removeLeftovers}).
 */
export class FsBlobStore implements BlobStore {
  /** Files on this machine's disk, ranges read in place, ids taken atomically (a rename). */
  readonly capabilities: ReadonlySet<BlobCapability> = new Set<BlobCapability>(['localPath', 'range', 'exclusiveCreate', 'putFile']);
  readonly #blobs: string;
  readonly #tmp: OwnedDirs;

  constructor(readonly dir: string) {
    this.#blobs = join(dir, 'blobs');
    this.#tmp = new OwnedDirs(join(dir, 'tmp'));
  }

  /**
   * {@inheritDoc BlobStore.put} `options.id` must match `/^[A-Za-z0-9_-]{8,128}$/` and be unused;
   * otherwise a random id is made. On any failure `source` is destroyed and nothing is left.
   */
  async put(source: Readable, meta: BlobMeta, options: { maxBytes?: number; id?: string } = {}): Promise<BlobRef> {
    // Listen at once: a source may fail (a missing file) while the folders are being made, before
    // `pipeline` listens, and an `error` event nobody listens to takes the process down.
    let sourceError: unknown;
    const onSourceError = (error: unknown) => {
      sourceError ??= error;
    };
    source.on('error', onSourceError);
    let staging: string | undefined;
    try {
      const id = options.id ?? newBlobId();
      if (!isBlobId(id)) throw new RangeError(`invalid blob id: ${JSON.stringify(id)}`);
      await mkdir(this.#blobs, { recursive: true });
      staging = await this.#tmp.create('put');
      if (sourceError !== undefined) throw sourceError;
      const counter = new ByteCounter(options.maxBytes);
      await pipeline(source, counter, createWriteStream(join(staging, 'data'), { flags: 'wx' })).catch((error: unknown) => {
        throw sourceError ?? error;
      });
      return await this.#commit(staging, id, counter.bytes, meta);
    } catch (error) {
      source.destroy();
      if (staging) await rm(staging, { recursive: true, force: true });
      throw error;
    } finally {
      source.off('error', onSourceError);
    }
  }

  /**
   * {@inheritDoc BlobStore.putFile} The file becomes the blob's data by a hard link (no byte is read or written;
   * the file stays where it is, as it is), or by a copy the kernel makes when it is on another filesystem: either
   * way off this thread, which only waits for a few system calls. `options.id` as in {@link put}.
   */
  async putFile(path: string, meta: BlobMeta, options: { id?: string } = {}): Promise<BlobRef> {
    const id = options.id ?? newBlobId();
    if (!isBlobId(id)) throw new RangeError(`invalid blob id: ${JSON.stringify(id)}`);
    await mkdir(this.#blobs, { recursive: true });
    const staging = await this.#tmp.create('put');
    try {
      const data = join(staging, 'data');
      // A symbolic link is copied through (a hard link would link the link); a regular file is linked, or copied
      // (copy_file_range where it can) on another filesystem (EXDEV) or one without hard links.
      const linkable = (await lstat(path)).isFile();
      await (linkable ? link(path, data) : Promise.reject(new Error('not a regular file'))).catch((error: unknown) => {
        if (fsErrorCode(error) === 'ENOENT') throw error;
        return copyFile(path, data, constants.COPYFILE_EXCL);
      });
      const info = await stat(data);
      if (!info.isFile()) throw new Error(`${path} is not a file`);
      return await this.#commit(staging, id, info.size, meta);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
  }

  /** Writes the metadata next to the staged data and renames the staging folder into place as blob `id`. */
  async #commit(staging: string, id: string, size: number, meta: BlobMeta): Promise<BlobRef> {
    const stored: StoredMeta = { size, createdAt: new Date().toISOString(), meta };
    await writeFile(join(staging, 'meta.json'), JSON.stringify(stored), { flag: 'wx' });
    await rename(staging, this.#blobDir(id)).catch((error: unknown) => {
      throw fsErrorCode(error) === 'ENOTEMPTY' || fsErrorCode(error) === 'EEXIST' ? new BlobExistsError(id) : error;
    });
    return { id, contentType: meta.contentType, size };
  }

  /** {@inheritDoc BlobStore.stat} */
  async stat(id: string): Promise<BlobInfo | undefined> {
    const stored = await this.#readMeta(id);
    if (!stored) return undefined;
    return { id, contentType: stored.meta.contentType, size: stored.size, meta: stored.meta, createdAt: stored.createdAt };
  }

  /** {@inheritDoc BlobStore.localPath} */
  async localPath(id: string): Promise<string | undefined> {
    return (await this.#readMeta(id)) ? join(this.#blobDir(id), 'data') : undefined;
  }

  /**
   * {@inheritDoc BlobStore.open} An `end` past the last byte is clamped to it; a range that is
   * still empty (or has a negative or non-integer bound) throws a RangeError.
   */
  async open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    if (!isBlobId(id)) return undefined;
    const handle = await open(join(this.#blobDir(id), 'data'), 'r').catch((error: unknown) => {
      if (fsErrorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (!handle || !range) return handle?.createReadStream();
    const { size } = await handle.stat();
    const end = Math.min(range.end, size - 1);
    if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.start > end) {
      await handle.close();
      throw new RangeError(`range ${range.start}-${range.end} does not fit a blob of ${size} bytes`);
    }
    return handle.createReadStream({ start: range.start, end });
  }

  /** {@inheritDoc BlobStore.delete} */
  async delete(id: string): Promise<void> {
    if (!isBlobId(id)) return;
    await mkdir(this.#tmp.root, { recursive: true });
    const trash = this.#tmp.path('delete');
    try {
      await rename(this.#blobDir(id), trash);
    } catch (error) {
      if (fsErrorCode(error) === 'ENOENT') return;
      throw error;
    }
    await rm(trash, { recursive: true, force: true });
  }

  /**
   * {@inheritDoc BlobStore.setExpiry} Does nothing when the blob is missing; `expiresAt` must be
   * a parseable timestamp.
   */
  async setExpiry(id: string, expiresAt: string | undefined): Promise<void> {
    if (expiresAt !== undefined && Number.isNaN(Date.parse(expiresAt))) {
      throw new RangeError(`invalid expiresAt: ${expiresAt}`);
    }
    const stored = await this.#readMeta(id);
    if (!stored) return;
    const { expiresAt: _previous, ...rest } = stored.meta;
    const next: StoredMeta = { ...stored, meta: expiresAt === undefined ? rest : { ...rest, expiresAt } };
    const partial = join(this.#blobDir(id), `meta.${newBlobId()}.tmp`);
    try {
      await writeFile(partial, JSON.stringify(next), { flag: 'wx' });
      await rename(partial, join(this.#blobDir(id), 'meta.json'));
    } catch (error) {
      // `force`: no error when the partial file is missing; a failure to remove it is reported instead.
      await rm(partial, { force: true });
      if (fsErrorCode(error) !== 'ENOENT') throw error; // ENOENT: deleted meanwhile
    }
  }

  /** {@inheritDoc BlobStore.expired} Reads every blob's metadata on disk. */
  async expired(now: Date): Promise<string[]> {
    const ids = (
      await readdir(this.#blobs).catch((error: unknown) => {
        if (fsErrorCode(error) === 'ENOENT') return [] as string[]; // nothing stored yet
        throw error;
      })
    ).filter(isBlobId);
    const due: string[] = [];
    for (let i = 0; i < ids.length; i += SCAN_BATCH) {
      const batch = ids.slice(i, i + SCAN_BATCH);
      const metas = await Promise.all(batch.map((id) => this.#readMeta(id)));
      metas.forEach((stored, j) => {
        const expiresAt = stored?.meta.expiresAt;
        if (expiresAt !== undefined && Date.parse(expiresAt) <= now.getTime()) due.push(batch[j]);
      });
    }
    return due;
  }

  /**
   * {@inheritDoc BlobStore.removeLeftovers} Removes the entries of `tmp/` whose process is gone (an
   * interrupted upload or delete); those of live processes, on this host or another, stay.
   */
  async removeLeftovers(): Promise<LeftoverReport> {
    const sweep = await this.#tmp.removeLeftovers();
    return { removed: sweep.removed.length, failed: sweep.failed };
  }

  async #readMeta(id: string): Promise<StoredMeta | undefined> {
    if (!isBlobId(id)) return undefined;
    try {
      return JSON.parse(await readFile(join(this.#blobDir(id), 'meta.json'), 'utf8')) as StoredMeta;
    } catch (error) {
      if (fsErrorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  #blobDir(id: string): string {
    return join(this.#blobs, id);
  }
}
