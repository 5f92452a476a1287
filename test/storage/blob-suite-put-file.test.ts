/**
 * The blob store suite's local-file test holds every store to something: a store without the `putFile` capability
 * must store a local file through the stream callers fall back to (`putLocalFile`), and a store with it must leave
 * the source file as it was. Before, the test returned at once for a store without `putFile` (it passed having
 * checked nothing) and did not notice a `putFile` that wrote to the source file. Three stores of this file's own
 * (test doubles around an `FsBlobStore`) go through the one test, under a bare runner.
 */
import assert from 'node:assert/strict';
import { readFile, utimes } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { BlobRef } from '../../src/domain/job.js';
import type { BlobCapability, BlobMeta, BlobStore } from '../../src/storage/blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { blobStoreSuite } from '../../src/testing/blob-store-suite.js';
import { bareRunner } from '../helpers/bare-runner.js';
import { tempDirs } from './temp-dir.js';

const tempDir = tempDirs('va-blob-suite-put-file-');

/** An `FsBlobStore` seen through the required methods only, with the given capabilities; records what `put` stored. */
function streamOnly(inner: FsBlobStore, capabilities: BlobCapability[], stored: Buffer[]): BlobStore {
  return {
    capabilities: new Set(capabilities),
    async put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef> {
      const ref = await inner.put(source, meta, options);
      stored.push(await readFile((await inner.localPath(ref.id))!));
      return ref;
    },
    stat: (id) => inner.stat(id),
    open: (id, range) => inner.open(id, range),
    delete: (id) => inner.delete(id),
    setExpiry: (id, expiresAt) => inner.setExpiry(id, expiresAt),
    expired: (now) => inner.expired(now),
  };
}

/** Runs only the suite's local-file test on `store`. */
async function localFileTest(create: () => Promise<BlobStore>) {
  const runner = bareRunner();
  blobStoreSuite('double', { describe: runner.describe, it: runner.it, create });
  const result = await runner.run(/stores a local file/);
  assert.equal(result.passed.length + result.failed.length, 1, 'one test stores a local file');
  return result;
}

describe('blob store suite: a local file', () => {
  it('goes through the stream callers fall back to in a store without putFile', async () => {
    const stored: Buffer[] = [];
    const { failed } = await localFileTest(async () => streamOnly(new FsBlobStore(await tempDir()), ['range', 'exclusiveCreate'], stored));
    assert.deepEqual(failed, []);
    assert.deepEqual(stored.map(String), ['file bytes'], 'the test stored the file through put');
  });

  it('fails a store with a putFile method it does not declare (callers would never use it)', async () => {
    const { failed } = await localFileTest(async () => {
      const store = streamOnly(new FsBlobStore(await tempDir()), ['range', 'exclusiveCreate'], []);
      return { ...store, putFile: async () => assert.fail('never called: undeclared') };
    });
    assert.match(failed.join('\n'), /declares the putFile capability/);
  });

  it('fails a putFile that writes to the source file, even with the same bytes', async () => {
    const { failed } = await localFileTest(async () => {
      const store = new FsBlobStore(await tempDir());
      const putFile = store.putFile.bind(store);
      store.putFile = async (path, meta, options) => {
        const ref = await putFile(path, meta, options);
        await utimes(path, new Date(), new Date(Date.now() + 5_000));
        return ref;
      };
      return store;
    });
    assert.match(failed.join('\n'), /the file is not written after/);
  });
});
