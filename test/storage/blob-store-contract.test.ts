import { after, before, describe, it } from 'node:test';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';
import { blobStoreSuite } from '../../src/testing/blob-store-suite.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { tempDirs } from './temp-dir.js';

const tempDir = tempDirs('va-blob-contract-');

blobStoreSuite('FsBlobStore', { describe, it, create: async () => new FsBlobStore(await tempDir()) });

let s3: S3TestServer;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.close());

let prefixes = 0;
blobStoreSuite('S3BlobStore on s3rver', {
  describe,
  it,
  // One part in flight: a put holds about two 5 MiB parts, far less than the 24 MiB file.
  create: async () => new S3BlobStore({ ...s3.storeOptions(`suite-${++prefixes}/`), queueSize: 1 }),
  largeBytes: 24 * 1024 * 1024,
  memoryBoundBytes: 16 * 1024 * 1024,
  destroy: async (store) => (store as S3BlobStore).close(),
});
