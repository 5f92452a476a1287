/** The storage layer: job records, media files and signed links. */
export type { JobStore } from './job-store.js';
export type { WebhookOutbox, ClaimedDelivery } from './webhook-outbox.js';
export { MemoryWebhookOutbox } from './memory-webhook-outbox.js';
export { RedisWebhookOutbox } from './redis-webhook-outbox.js';
export type { IdempotencyStore, IdempotencyReservation, StoredAnswer } from './idempotency-store.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './memory-idempotency-store.js';
export { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from './redis-idempotency-store.js';
export { createIdempotencyStore } from './create-idempotency-store.js';
export {
  BlobExistsError,
  BlobTooLargeError,
  type BlobCapability,
  type BlobInfo,
  type BlobMeta,
  type BlobStore,
  type LeftoverReport,
  type PresignOptions,
} from './blob-store.js';
export type { AvatarStore } from './avatar-store.js';
export { MemoryAvatarStore } from './memory-avatar-store.js';
export { RedisAvatarStore, type RedisAvatarStoreOptions } from './redis-avatar-store.js';
export { createAvatarStore } from './create-avatar-store.js';
export { MemoryJobStore, type MemoryJobStoreOptions } from './memory-job-store.js';
export { RedisJobStore, type RedisJobStoreOptions } from './redis-job-store.js';
export { StoreUnavailableError, isStoreUnavailable } from './store-unavailable-error.js';
export { DEFAULT_REDIS_TIMEOUTS, type RedisTimeouts } from './redis-connection.js';
export { createJobStore, type CreateJobStoreOptions } from './create-job-store.js';
export { FsBlobStore } from './fs-blob-store.js';
export { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
export { createBlobStore, type CreateBlobStoreOptions } from './create-blob-store.js';
export { isBlobId, newBlobId } from './blob-id.js';
export { UrlSigner, loadOrCreateSecret, type SignatureCheck, type SignedParams } from './url-signer.js';
