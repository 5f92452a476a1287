import { setTimeout as delay } from 'node:timers/promises';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { newBlobId } from '../../storage/blob-id.js';
import { ApiError } from '../errors.js';

/** How long a store may take to answer a readiness probe. */
export const READINESS_TIMEOUT_MS = 2_000;

/** The stores a readiness probe asks. */
export interface ProbedStores {
  jobStore: JobStore;
  blobs: BlobStore;
}

/** Settles with the probe's outcome or a timeout; never rejects. */
async function answers(probe: () => Promise<unknown>, timeoutMs: number): Promise<string | undefined> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      probe().then(
        () => undefined,
        (error: unknown) => String((error as Error)?.message ?? error),
      ),
      delay(timeoutMs, `no answer within ${timeoutMs} ms`, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}

/**
 * Asks the job store and the blob store for a record that does not exist (a read each, nothing written).
 * Throws a 503 `unavailable` naming the store that failed or did not answer in time.
 */
export async function probeStores(stores: ProbedStores, timeoutMs = READINESS_TIMEOUT_MS): Promise<void> {
  const [jobStore, blobStore] = await Promise.all([
    answers(() => stores.jobStore.get(`readiness-probe-${newBlobId()}`), timeoutMs),
    answers(() => stores.blobs.stat(newBlobId()), timeoutMs),
  ]);
  const problems = [jobStore && `job store: ${jobStore}`, blobStore && `blob store: ${blobStore}`].filter(Boolean);
  if (problems.length > 0) throw new ApiError(503, 'unavailable', `not ready: ${problems.join('; ')}`);
}
