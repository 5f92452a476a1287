import type { JobStore } from './job-store.js';

/**
 * Before work that precedes a store's first use (a creation's downloads and input checks, a portrait's face
 * detection): while `store` reports an outage ({@link JobStore.suspectedDown}), pings it, which rejects with a
 * `StoreUnavailableError` when it is still unreachable; otherwise resolves at once, without a round trip.
 */
export async function confirmReachable(store: JobStore): Promise<void> {
  if (store.suspectedDown?.()) await store.ping?.();
}
