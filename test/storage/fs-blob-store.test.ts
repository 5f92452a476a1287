import assert from 'node:assert/strict';
import { readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, it } from 'node:test';
import { BlobTooLargeError } from '../../src/storage/blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { tempDirs } from './temp-dir.js';

const freshDir = tempDirs('va-blobs-');

/** A stream of `content` in small chunks, so limits are hit mid-stream. */
function chunks(content: string, size = 4): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < content.length; i += size) parts.push(Buffer.from(content.slice(i, i + size)));
  return Readable.from(parts);
}

async function readAll(stream: Readable | undefined): Promise<string> {
  assert.ok(stream, 'expected a stream');
  return text(stream);
}

const META = { contentType: 'audio/wav', owner: 'owner-a', fileName: 'voice.wav' };

describe('FsBlobStore', () => {
  it('puts a blob and serves its metadata, path and bytes', async () => {
    const store = new FsBlobStore(await freshDir());
    const ref = await store.put(chunks('hello, world'), META);
    assert.match(ref.id, /^[A-Za-z0-9_-]{8,128}$/);
    assert.deepEqual(ref, { id: ref.id, contentType: 'audio/wav', size: 12 });
    const info = await store.stat(ref.id);
    assert.deepEqual(info?.meta, META);
    assert.equal(info?.size, 12);
    assert.ok(Math.abs(Date.parse(info?.createdAt ?? '') - Date.now()) < 60_000);
    const path = await store.localPath(ref.id);
    assert.ok(path);
    assert.equal(await readFile(path, 'utf8'), 'hello, world');
    assert.equal(await readAll(await store.open(ref.id)), 'hello, world');
    const other = await store.put(chunks('x'), META);
    assert.notEqual(other.id, ref.id);
  });

  it('opens byte ranges with an inclusive end, clamped to the size', async () => {
    const store = new FsBlobStore(await freshDir());
    const { id } = await store.put(chunks('0123456789'), META);
    assert.equal(await readAll(await store.open(id, { start: 2, end: 5 })), '2345');
    assert.equal(await readAll(await store.open(id, { start: 9, end: 9 })), '9');
    assert.equal(await readAll(await store.open(id, { start: 7, end: 1000 })), '789');
    await assert.rejects(store.open(id, { start: 10, end: 12 }), RangeError);
    await assert.rejects(store.open(id, { start: 5, end: 4 }), RangeError);
    await assert.rejects(store.open(id, { start: -1, end: 4 }), RangeError);
  });

  it('answers undefined for missing and malformed ids', async () => {
    const store = new FsBlobStore(await freshDir());
    for (const id of ['missing-blob-id', '../../etc/passwd', 'short']) {
      assert.equal(await store.stat(id), undefined);
      assert.equal(await store.localPath(id), undefined);
      assert.equal(await store.open(id), undefined);
    }
  });

  it('uses a given id, refuses a malformed or taken one and keeps the original', async () => {
    const store = new FsBlobStore(await freshDir());
    const ref = await store.put(chunks('first'), META, { id: 'my_blob-0001' });
    assert.equal(ref.id, 'my_blob-0001');
    await assert.rejects(store.put(chunks('second'), META, { id: 'my_blob-0001' }), /already exists/);
    assert.equal(await readAll(await store.open('my_blob-0001')), 'first');
    const source = chunks('x');
    await assert.rejects(store.put(source, META, { id: '../escape-attempt' }), RangeError);
    assert.equal(source.destroyed, true);
  });

  it('rejects a stream over maxBytes, destroys it and leaves no file', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const source = chunks('a'.repeat(100));
    await assert.rejects(store.put(source, META, { maxBytes: 10 }), (error: unknown) => {
      assert.ok(error instanceof BlobTooLargeError);
      assert.equal(error.limit, 10);
      return true;
    });
    assert.equal(source.destroyed, true);
    assert.deepEqual(await readdir(join(dir, 'blobs')), []);
    assert.deepEqual(await readdir(join(dir, 'tmp')), []);
    const exact = await store.put(chunks('a'.repeat(10)), META, { maxBytes: 10 });
    assert.equal(exact.size, 10);
  });

  it('leaves nothing when the source fails', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from('partial');
        throw new Error('connection reset');
      })(),
    );
    await assert.rejects(store.put(failing, META), /connection reset/);
    assert.deepEqual(await readdir(join(dir, 'blobs')), []);
    assert.deepEqual(await readdir(join(dir, 'tmp')), []);
  });

  it('stores a local file by a hard link (same filesystem), leaves the file and nothing in tmp/ on failure', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const file = join(dir, 'engine-output.mp4');
    await writeFile(file, 'video bytes');
    const ref = await store.putFile(file, META, { id: 'result-0001' });
    assert.deepEqual(ref, { id: 'result-0001', contentType: 'audio/wav', size: 11 });
    const path = await store.localPath(ref.id);
    assert.ok(path);
    // No byte was copied: the blob's data is the file's inode.
    assert.equal((await stat(path)).ino, (await stat(file)).ino);
    assert.deepEqual((await store.stat(ref.id))?.meta, META);
    await assert.rejects(store.putFile(file, META, { id: 'result-0001' }), /already exists/);
    await assert.rejects(store.putFile(join(dir, 'missing.mp4'), META), /ENOENT/);
    await assert.rejects(store.putFile(file, META, { id: '../escape-attempt' }), RangeError);
    assert.deepEqual(await readdir(join(dir, 'tmp')), []);
    assert.equal(await readFile(file, 'utf8'), 'video bytes');
  });

  it('copies what a symbolic link points to instead of linking the link', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const file = join(dir, 'target.mp4');
    await writeFile(file, 'target bytes');
    await symlink(file, join(dir, 'link.mp4'));
    const ref = await store.putFile(join(dir, 'link.mp4'), META);
    const path = await store.localPath(ref.id);
    assert.ok(path);
    assert.equal((await stat(path)).isFile(), true);
    assert.notEqual((await stat(path)).ino, (await stat(file)).ino);
    assert.equal(await readFile(path, 'utf8'), 'target bytes');
  });

  it('lists expired blobs and follows setExpiry', async () => {
    const store = new FsBlobStore(await freshDir());
    const now = new Date('2025-06-01T12:00:00.000Z');
    const past = await store.put(chunks('p'), { ...META, expiresAt: '2025-06-01T11:00:00.000Z' });
    const exact = await store.put(chunks('e'), { ...META, expiresAt: now.toISOString() });
    const future = await store.put(chunks('f'), { ...META, expiresAt: '2025-06-02T12:00:00.000Z' });
    const forever = await store.put(chunks('k'), META);
    assert.deepEqual((await store.expired(now)).sort(), [past.id, exact.id].sort());

    await store.setExpiry(future.id, '2025-06-01T00:00:00.000Z');
    await store.setExpiry(past.id, undefined);
    assert.deepEqual((await store.expired(now)).sort(), [exact.id, future.id].sort());
    assert.equal((await store.stat(past.id))?.meta.expiresAt, undefined);
    assert.equal((await store.stat(future.id))?.meta.expiresAt, '2025-06-01T00:00:00.000Z');
    assert.equal((await store.stat(future.id))?.meta.fileName, 'voice.wav');
    assert.equal((await store.stat(forever.id))?.meta.expiresAt, undefined);

    await assert.rejects(store.setExpiry(forever.id, 'not a date'), RangeError);
    await store.setExpiry('missing-blob-id', now.toISOString());
  });

  it('deletes, after which the blob is gone everywhere; deleting again is fine', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const ref = await store.put(chunks('bye'), { ...META, expiresAt: '2000-01-01T00:00:00.000Z' });
    await store.delete(ref.id);
    assert.equal(await store.stat(ref.id), undefined);
    assert.equal(await store.open(ref.id), undefined);
    assert.equal(await store.localPath(ref.id), undefined);
    assert.deepEqual(await store.expired(new Date()), []);
    await store.delete(ref.id);
    await store.delete('../not-an-id');
    assert.deepEqual(await readdir(join(dir, 'tmp')), []);
  });

  it('keeps blobs, metadata and expiries across a new instance on the same folder', async () => {
    const dir = await freshDir();
    const first = new FsBlobStore(dir);
    const kept = await first.put(chunks('persistent'), META);
    const due = await first.put(chunks('old'), META);
    await first.setExpiry(due.id, '2000-01-01T00:00:00.000Z');

    const second = new FsBlobStore(dir);
    assert.deepEqual(await second.stat(kept.id), await first.stat(kept.id));
    assert.equal(await readAll(await second.open(kept.id, { start: 3, end: 6 })), 'sist');
    assert.deepEqual(await second.expired(new Date()), [due.id]);
  });

  it('reports no expired blobs for a folder never written', async () => {
    const store = new FsBlobStore(join(await freshDir(), 'never-created'));
    assert.deepEqual(await store.expired(new Date()), []);
  });
});
