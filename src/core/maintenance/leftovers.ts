import type { BlobStore } from '../../storage/blob-store.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { Logger } from '../../domain/logger.js';

/**
 * Removes what crashed processes left on the data dir: job and avatar work folders under `work/`,
 * and the blob store's interrupted writes and deletes. Entries of live processes stay (see
 * {@link OwnedDirs}). Run once at start-up; never rejects, logs what it did and what failed.
 */
export async function removeCrashLeftovers(blobs: BlobStore, workDirs: OwnedDirs, logger: Logger): Promise<void> {
  const [work, stored] = await Promise.all([
    workDirs.removeLeftovers(),
    blobs.removeLeftovers
      ? blobs.removeLeftovers().catch((error: unknown) => ({ removed: 0, failed: [{ name: '(blob store)', error: String(error) }] }))
      : { removed: 0, failed: [] },
  ]);
  const removed = work.removed.length + stored.removed;
  if (removed) logger.info('removed leftovers of stopped processes', { workFolders: work.removed.length, blobStore: stored.removed });
  for (const failure of [...work.failed, ...stored.failed]) logger.warn('could not remove a leftover', failure);
}
