import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { S3Layout } from '../../src/storage/s3-layout.js';
import { S3Traffic } from '../helpers/s3-traffic.js';
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
  // One part in flight: a put holds a few 5 MiB parts (measured 16–26 MB: the part being sent, the next one
  // filling, lib-storage's concatenation buffers), well under the 48 MiB file.
  create: async () => new S3BlobStore({ ...s3.storeOptions(`suite-${++prefixes}/`), queueSize: 1 }),
  largeBytes: 48 * 1024 * 1024,
  memoryBoundBytes: 34 * 1024 * 1024,
  destroy: async (store) => (store as S3BlobStore).close(),
});

describe('S3BlobStore specifics', () => {
  it('finds due blobs without listing the bucket: one listing of hour folders, one per due hour, one HEAD per due marker', async () => {
    const store = new S3BlobStore(s3.storeOptions(`sweep-${++prefixes}/`));
    try {
      const now = Date.now();
      const meta = (offsetMs: number) => ({ contentType: 'text/plain', owner: 'o', expiresAt: new Date(now + offsetMs).toISOString() });
      const due = await store.put(Readable.from([Buffer.from('due')]), meta(-1_000));
      // Twenty blobs expiring in later hours, and ten that never expire.
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.put(Readable.from([Buffer.from('later')]), meta((i + 2) * 3_600_000))));
      await Promise.all(Array.from({ length: 10 }, () => store.put(Readable.from([Buffer.from('kept')]), { contentType: 'text/plain', owner: 'o' })));
      const traffic = new S3Traffic(store.client);
      assert.deepEqual(await store.expired(new Date(now)), [due.id]);
      const count = traffic.take();
      assert.deepEqual(count.requests, { ListObjectsV2Command: 2, HeadObjectCommand: 1 }, JSON.stringify(count));
    } finally {
      store.close();
    }
  });

  it('drops markers of blobs that are gone (a crash between the marker and the upload)', async () => {
    const store = new S3BlobStore(s3.storeOptions(`orphans-${++prefixes}/`));
    try {
      const past = new Date(Date.now() - 1_000).toISOString();
      const orphan = new S3Layout(`orphans-${prefixes}/`).marker('orphan-blob-id', past);
      await store.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: orphan, Body: new Uint8Array(0), ContentLength: 0 }));
      assert.deepEqual(await store.expired(new Date()), []);
      const traffic = new S3Traffic(store.client);
      assert.deepEqual(await store.expired(new Date()), []);
      assert.equal(traffic.take().requests.HeadObjectCommand, undefined, 'the orphan marker was deleted by the first sweep');
    } finally {
      store.close();
    }
  });

  it('reports, never throws, when the server cannot list multipart uploads (s3rver)', async () => {
    const store = new S3BlobStore(s3.storeOptions(`leftovers-${++prefixes}/`));
    try {
      const report = await store.removeLeftovers();
      assert.equal(report.removed, 0);
      assert.equal(report.failed.length, 1);
      assert.match(report.failed[0]!.error, /NotImplemented|not implemented/i);
    } finally {
      store.close();
    }
  });
});
