/** The storage layer: job records, media files and signed links. */
export type { JobStore } from './job-store.js';
export { BlobExistsError, BlobTooLargeError, type BlobInfo, type BlobMeta, type BlobStore, type LeftoverReport } from './blob-store.js';
export { MemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store.js';
export { RedisJobStore, type RedisJobStoreOptions } from './redis-job-store.js';
export { StoreUnavailableError, isStoreUnavailable } from './store-unavailable-error.js';
export { DEFAULT_REDIS_TIMEOUTS, type RedisTimeouts } from './redis-connection.js';
export { createJobStore, type CreateJobStoreOptions } from './create-job-store.js';
export { FsBlobStore } from './fs-blob-store.js';
export { isBlobId, newBlobId } from './blob-id.js';
export { UrlSigner, loadOrCreateSecret, type SignatureCheck, type SignedParams } from './url-signer.js';
