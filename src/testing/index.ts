/**
 * virtual-anchor/testing: the contract suites for people who write a backend or an adapter, as
 * `@keyv/test-suite` is for Keyv stores. Each suite registers its tests with the `describe` and `it` it is given
 * (node:test, vitest and mocha all fit) and needs nothing but the package itself:
 * - {@link blobStoreSuite}: a custom {@link BlobStore} (the filesystem and S3 stores pass it);
 * - {@link jobStoreSuite}: a custom {@link JobStore} of job records, with its optional parts (the memory and Redis stores pass it);
 * - {@link webhookOutboxSuite}: a custom `WebhookOutbox` with the job store that writes it (the memory and Redis stores' outboxes pass it);
 * - {@link idempotencyStoreSuite}: a custom `IdempotencyStore` of idempotency keys (the memory and Redis ones pass it);
 * - {@link queueSuite}: a custom `JobQueue` (the in-process and BullMQ queues pass it);
 * - {@link avatarStoreSuite}: a custom `AvatarStore` of photo avatars (the memory and Redis stores pass it);
 * - {@link jobEventsSuite}: custom `JobEvents` announcements of ended jobs (the in-process and Redis ones pass it);
 * - {@link adapterSuite}: an HTTP adapter for another framework (the Express, Koa and a bare node:http adapter pass it).
 *
 * ```ts
 * import { describe, it } from 'node:test';
 * import { blobStoreSuite } from 'virtual-anchor/testing';
 * blobStoreSuite('my store', { describe, it, create: async () => new MyBlobStore() });
 * ```
 *
 * @packageDocumentation
 */
import type { BlobStore } from '../storage/blob-store.js';
import type { JobStore } from '../storage/job-store.js';

export type { SuiteRunner } from './suite-runner.js';
export { blobStoreSuite, type BlobStoreSuiteOptions } from './blob-store-suite.js';
export { jobStoreSuite, type JobStoreSuiteOptions, type JobStoreSettings, type JobStoreCapability } from './job-store-suite.js';
export { webhookOutboxSuite, type WebhookOutboxSuiteOptions, type OutboxPair } from './webhook-outbox-suite.js';
export { idempotencyStoreSuite, type IdempotencyStoreSuiteOptions } from './idempotency-store-suite.js';
export { adapterSuite, type AdapterSuiteOptions, type AdapterHost, type MountSettings } from './adapter-suite.js';
/** Job records for a store's own further tests. */
export { makeJob, at, uids } from './job-fixtures.js';
export { queueSuite, type QueueSuiteOptions } from './queue-suite.js';
export { avatarStoreSuite, makePhotoAvatar, makeLandmarks, type AvatarStoreSuiteOptions } from './avatar-store-suite.js';
export { jobEventsSuite, type JobEventsSuiteOptions } from './job-events-suite.js';
