import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobRef } from '../domain/job.js';
import type { BlobMeta, BlobStore, PresignOptions } from './blob-store.js';

/** `blobs.localPath`, when the store has the `localPath` capability; else `undefined`. */
export function localPathReader(blobs: BlobStore): ((id: string) => Promise<string | undefined>) | undefined {
  return blobs.capabilities.has('localPath') && blobs.localPath ? blobs.localPath.bind(blobs) : undefined;
}

/** `blobs.presignGet`, when the store has the `presignedGet` capability; else `undefined`. */
export function presigner(blobs: BlobStore): ((id: string, options: PresignOptions) => Promise<string>) | undefined {
  return blobs.capabilities.has('presignedGet') && blobs.presignGet ? blobs.presignGet.bind(blobs) : undefined;
}

/**
 * A local file holding blob `id`: the store's own file when it has the `localPath` capability (no copy), otherwise
 * the blob streamed from the store into `dir/name` (never held in memory). `undefined` when the blob is missing.
 * A copy lives in `dir`, which the caller owns and removes.
 */
export async function blobToLocalFile(blobs: BlobStore, id: string, dir: string, name: string): Promise<string | undefined> {
  const local = localPathReader(blobs);
  if (local) return local(id);
  const source = await blobs.open(id);
  if (!source) return undefined;
  const path = join(dir, name);
  await pipeline(source, createWriteStream(path, { flags: 'wx' }));
  return path;
}

/**
 * Stores the local file at `path` as a new blob (see {@link BlobStore.put}; `id` as there): with the store's
 * `putFile` capability without reading it here (the filesystem store links it), otherwise streamed from the file.
 * The file is left in place.
 */
export function putLocalFile(blobs: BlobStore, path: string, meta: BlobMeta, options?: { id?: string }): Promise<BlobRef> {
  if (blobs.capabilities.has('putFile') && blobs.putFile) return blobs.putFile(path, meta, options);
  return blobs.put(createReadStream(path), meta, options);
}
