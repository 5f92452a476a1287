/**
 * `bullmq`, loaded the first time a BullMQ queue is built rather than when the package is imported, as the stores'
 * client libraries are (see src/storage/backend-sdks.ts: a CommonJS package, so `require` and `import` share one
 * module object).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** BullMQ's package. */
export const bullMqSdk = (): typeof import('bullmq') => require('bullmq') as typeof import('bullmq');
