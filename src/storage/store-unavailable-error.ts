/**
 * Thrown by a {@link JobStore} when its backend cannot be reached in time (not connected, connection
 * lost, connect or command timeout). Nothing of the failed call was queued to run later: the caller
 * may retry. The HTTP layer answers it with 503 `unavailable`; it is matched by `name`, so a custom
 * store can throw its own error with `name === 'StoreUnavailableError'`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** True for a {@link StoreUnavailableError}, also one from another copy of this package or a custom store. */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && error.name === 'StoreUnavailableError';
}
