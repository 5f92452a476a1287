/**
 * The client libraries of the Redis stores and the S3 blob store, loaded the first time a backend that needs one is
 * built rather than when the package is imported: a host on the in-memory defaults never loads them, and importing
 * the package takes about half the time it did (see docs/performance.md). These packages are CommonJS (no `exports`
 * map, `main` only), so `import` resolved them to the same files and Node's module cache hands `require` and
 * `import` the same module objects: a client a host made itself (`S3BlobStoreOptions.client`) meets the same
 * classes as before. The queue's BullMQ is loaded the same way (src/queue/bullmq-sdk.ts).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `@redis/client` (node-redis), for the Redis stores and the queue's key semaphore. */
export const redisSdk = (): typeof import('@redis/client') => require('@redis/client') as typeof import('@redis/client');

/** The three packages of the S3 blob store. */
export interface S3Sdk {
  client: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
  presigner: typeof import('@aws-sdk/s3-request-presigner');
}

/** `@aws-sdk/client-s3`, `@aws-sdk/lib-storage` and `@aws-sdk/s3-request-presigner`, for the S3 blob store. */
export const s3Sdk = (): S3Sdk => ({
  client: require('@aws-sdk/client-s3') as S3Sdk['client'],
  storage: require('@aws-sdk/lib-storage') as S3Sdk['storage'],
  presigner: require('@aws-sdk/s3-request-presigner') as S3Sdk['presigner'],
});
