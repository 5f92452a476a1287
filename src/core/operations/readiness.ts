import { setTimeout as delay } from 'node:timers/promises';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { newBlobId } from '../../storage/blob-id.js';
import { ApiError } from '../errors.js';
import type { AvatarCatalogue } from '../avatars/avatar-catalogue.js';

/** How long a store may take to answer a readiness probe. */
export const READINESS_TIMEOUT_MS = 2_000;

/** How many still-rendering avatars a readiness answer names; the rest are counted. */
const NAMED_AVATARS = 10;

/** What a readiness probe asks: the stores, and the catalogue whose assets this process renders. */
export interface ProbedStores {
  jobStore: JobStore;
  blobs: BlobStore;
  /** The idempotency keys' store (it may live apart from the job store). */
  idempotency?: { probe(): Promise<void> };
  catalogue?: Pick<AvatarCatalogue, 'stillRendering'>;
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

/** `avatar assets still rendering: Amara, Ava` (at most {@link NAMED_AVATARS} named), or undefined when none is. */
function rendering(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const more = names.length - NAMED_AVATARS;
  return `avatar assets still rendering: ${names.slice(0, NAMED_AVATARS).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * Asks the job store and the blob store for a record that does not exist (a read each, nothing written), the
 * idempotency store to free a key nobody holds (one delete of a missing key), and the
 * catalogue which avatars' assets (idle video, preview, thumbnail) are still being rendered at start-up (their
 * `avatarPrepare` jobs have not ended).
 * Throws a 503 `unavailable` naming the store that failed or did not answer in time, and the avatars still rendering
 * (an avatar whose rendering failed is not waited for: its failure is logged).
 */
export async function probeStores(stores: ProbedStores, timeoutMs = READINESS_TIMEOUT_MS): Promise<void> {
  const { idempotency } = stores;
  const [jobStore, blobStore, idempotencyStore] = await Promise.all([
    answers(() => stores.jobStore.get(`readiness-probe-${newBlobId()}`), timeoutMs),
    answers(() => stores.blobs.stat(newBlobId()), timeoutMs),
    idempotency ? answers(() => idempotency.probe(), timeoutMs) : undefined,
  ]);
  // The avatars' state is their jobs': asked only of a job store that answers.
  const stillRendering = jobStore ? [] : ((await stores.catalogue?.stillRendering().catch(() => [])) ?? []);
  const problems = [
    jobStore && `job store: ${jobStore}`,
    blobStore && `blob store: ${blobStore}`,
    idempotencyStore && `idempotency store: ${idempotencyStore}`,
    rendering(stillRendering),
  ].filter(Boolean);
  if (problems.length > 0) throw new ApiError(503, 'unavailable', `not ready: ${problems.join('; ')}`);
}
