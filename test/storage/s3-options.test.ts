import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { optionsFromEnv } from '../../examples/config-from-env.js';
import { OptionsError, createVirtualAnchor } from '../../src/index.js';
import { createBlobStore } from '../../src/storage/create-blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { S3BlobStore } from '../../src/storage/s3-blob-store.js';

describe('choosing the S3 blob store', () => {
  it('reads the operator variables of the example server', () => {
    const { options } = optionsFromEnv({
      VIRTUAL_ANCHOR_API_KEYS: 'k',
      VIRTUAL_ANCHOR_S3_BUCKET: 'media',
      VIRTUAL_ANCHOR_S3_ENDPOINT: 'http://127.0.0.1:9000',
      VIRTUAL_ANCHOR_S3_REGION: 'eu-west-1',
      VIRTUAL_ANCHOR_S3_FORCE_PATH_STYLE: '1',
    });
    assert.deepEqual(options.s3, { bucket: 'media', endpoint: 'http://127.0.0.1:9000', region: 'eu-west-1', prefix: undefined, forcePathStyle: true });
    assert.equal(optionsFromEnv({ VIRTUAL_ANCHOR_API_KEYS: 'k' }).options.s3, undefined, 'no bucket: the filesystem store');
  });

  it('makes an S3 store when `s3` is given, else the filesystem store', () => {
    const s3 = createBlobStore({ dataDir: '/tmp/unused', s3: { bucket: 'media', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true } });
    assert.ok(s3 instanceof S3BlobStore);
    assert.deepEqual([...s3.capabilities].sort(), ['presignedGet', 'range']);
    (s3 as S3BlobStore).close();
    const fs = createBlobStore({ dataDir: '/tmp/unused' });
    assert.ok(fs instanceof FsBlobStore);
    assert.deepEqual([...fs.capabilities].sort(), ['exclusiveCreate', 'localPath', 'putFile', 'range']);
  });

  it('refuses malformed s3 options at start-up', () => {
    const bad = [{ prefix: 'no-slash' }, { bucket: '' }, { endpoint: 'ftp://x' }, { typo: true }];
    for (const change of bad) {
      assert.throws(() => createVirtualAnchor({ apiKeys: ['k'], logger: false, s3: { bucket: 'media', ...change } as never }), OptionsError, JSON.stringify(change));
    }
  });
});
