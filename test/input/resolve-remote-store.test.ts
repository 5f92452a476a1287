/**
 * The input resolver with a blob store that has no local files (no `localPath` capability, as S3): a download is
 * checked in a scratch folder and stored once only when accepted, an upload is copied once to be checked, and no
 * scratch folder is left either way.
 */
import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { BlobRef } from '../../src/domain/job.js';
import { InputError } from '../../src/core/input/errors.js';
import { InputResolver, type ResolveOptions } from '../../src/core/input/resolve-input.js';
import type { BlobCapability, BlobMeta } from '../../src/storage/blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { OwnedDirs } from '../../src/storage/owned-dirs.js';
import { startServer, type TestServer } from './helpers/http-server.js';
import { TEST_BINARIES, makeMediaFixtures, type FixtureName, type MediaFixtures } from './helpers/media-fixtures.js';

/** A filesystem store that does not declare `localPath` (so callers treat it as S3) and counts puts and opens. */
class RemoteLikeStore extends FsBlobStore {
  override readonly capabilities: ReadonlySet<BlobCapability> = new Set<BlobCapability>(['range']);
  puts = 0;
  opens = 0;
  override put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef> {
    this.puts++;
    return super.put(source, meta, options);
  }
  override open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    this.opens++;
    return super.open(id, range);
  }
}

const AUDIO: ResolveOptions = { kind: 'audio', maxBytes: 1_000_000, maxDurationSec: 10 };

describe('InputResolver with a store without local files', () => {
  let fx: MediaFixtures;
  let server: TestServer;
  let dir: string;
  let store: RemoteLikeStore;
  let scratch: OwnedDirs;
  let resolver: InputResolver;
  const url = (name: FixtureName) => `${server.origin}/f/${name}`;

  before(async () => {
    fx = await makeMediaFixtures(['tone.wav', 'tone.mp3']);
    server = await startServer((req, res) => {
      if (req.url === '/junk') return res.end('this is text, not media '.repeat(40));
      createReadStream(fx.path(decodeURIComponent((req.url ?? '').replace(/^\/f\//, '')) as FixtureName))
        .on('error', () => res.writeHead(404).end())
        .pipe(res);
    });
    dir = await mkdtemp(join(tmpdir(), 'va-remote-store-'));
    store = new RemoteLikeStore(join(dir, 'store'));
    scratch = new OwnedDirs(join(dir, 'scratch'));
    resolver = new InputResolver({ blobs: store, binaries: TEST_BINARIES, allowPrivateAddresses: true, scratchDirs: scratch });
  });
  after(async () => {
    await server.close();
    await fx.cleanup();
    await rm(dir, { recursive: true, force: true });
  });
  const scratchLeft = () => readdir(scratch.root).catch(() => [] as string[]);

  it('checks a download locally, then stores it once', async () => {
    const puts = store.puts;
    const resolved = await resolver.resolve(url('tone.mp3'), 'owner-a', AUDIO);
    assert.equal(resolved.scratch, true);
    assert.equal(store.puts - puts, 1, 'one put into the store');
    assert.ok(resolved.durationSec > 0.9 && resolved.durationSec < 1.2, String(resolved.durationSec));
    const info = await store.stat(resolved.blob.id);
    assert.equal(info?.meta.owner, 'owner-a');
    assert.equal(info?.size, resolved.blob.size);
    assert.deepEqual(await scratchLeft(), []);
  });

  it('never stores a refused download', async () => {
    const puts = store.puts;
    await assert.rejects(resolver.resolve(`${server.origin}/junk`, 'owner-a', AUDIO), (error: unknown) => error instanceof InputError && error.code === 'not_audio');
    assert.equal(store.puts, puts, 'nothing reached the store');
    assert.deepEqual(await scratchLeft(), []);
  });

  it('checks an upload on one copy read from the store', async () => {
    const id = (await store.put(createReadStream(fx.path('tone.wav')), { owner: 'owner-a', contentType: 'audio/wav' })).id;
    const opens = store.opens;
    const resolved = await resolver.resolve(`upload://${id}`, 'owner-a', AUDIO);
    assert.equal(resolved.scratch, false);
    assert.equal(resolved.blob.id, id);
    assert.equal(store.opens - opens, 1, 'read once');
    assert.deepEqual(await scratchLeft(), []);
    await assert.rejects(resolver.resolve(`upload://${id}`, 'owner-b', AUDIO), (error: unknown) => error instanceof InputError && error.code === 'not_found');
  });
});
