import type { Logger } from '../domain/logger.js';
import type { BlobStore } from './blob-store.js';
import { FsBlobStore } from './fs-blob-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';

/** Options of {@link createBlobStore}. */
export interface CreateBlobStoreOptions {
  /** The data dir; blobs live under it when `s3` is not given. */
  dataDir: string;
  /** When set, blobs live in this S3 bucket. */
  s3?: Omit<S3BlobStoreOptions, 'client' | 'logger'>;
  logger?: Logger;
}

/** An {@link S3BlobStore} when `s3` is given, else a {@link FsBlobStore} in `dataDir`. */
export function createBlobStore(options: CreateBlobStoreOptions): BlobStore {
  return options.s3 ? new S3BlobStore({ ...options.s3, logger: options.logger }) : new FsBlobStore(options.dataDir);
}
