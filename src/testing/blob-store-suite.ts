import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BlobExistsError, BlobTooLargeError, type BlobStore } from '../storage/blob-store.js';
import { putLocalFile } from '../storage/blob-files.js';
import type { SuiteRunner } from './suite-runner.js';

/** Options of {@link blobStoreSuite}. */
export interface BlobStoreSuiteOptions extends SuiteRunner {
  /** Makes a store to test; each test gets a fresh one (it may share a backend with others: tests use fresh ids). */
  create(): Promise<BlobStore>;
  /** Releases a store made by `create`. */
  destroy?(store: BlobStore): Promise<void>;
  /** Size of the file streamed through the store to check streaming and memory. Default 12 MiB (over S3's 5 MiB part). */
  largeBytes?: number;
  /** Most extra memory (array buffers) a put of `largeBytes` may hold at once. Default `largeBytes × 3 / 4`. */
  memoryBoundBytes?: number;
}

/** A full garbage collection, made available without `--expose-gc`. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const text = (value: string) => Readable.from([Buffer.from(value)]);

async function readAll(stream: Readable | undefined): Promise<Buffer> {
  assert.ok(stream, 'the blob should open');
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A fresh well-formed blob id. */
function freshId(): string {
  return `suite-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** A stream of `size` deterministic bytes made as read (never held whole), with the SHA-256 it will have. */
function generated(size: number): { stream: Readable; sha256: Promise<string> } {
  const hash = createHash('sha256');
  let sent = 0;
  let resolveHash!: (digest: string) => void;
  const sha256 = new Promise<string>((resolve) => (resolveHash = resolve));
  const stream = new Readable({
    read() {
      if (sent >= size) {
        resolveHash(hash.digest('hex'));
        this.push(null);
        return;
      }
      const chunk = Buffer.alloc(Math.min(64 * 1024, size - sent), sent % 251);
      chunk.writeUInt32BE(sent >>> 0, 0);
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, sha256 };
}

/**
 * The contract every {@link BlobStore} keeps, as a test suite: run it on a custom store with node:test's
 * `describe` and `it`, e.g. `blobStoreSuite('my store', { create: async () => new MyStore(), describe, it })`.
 * It checks put/stat/open (ranges included), delete, expiry and `expired`, {@link BlobExistsError},
 * {@link BlobTooLargeError}, that a failed put leaves nothing, that a local file is stored (by `putFile` where the
 * store declares it, by the stream callers fall back to otherwise; an undeclared `putFile` method fails), and that a file
 * larger than S3's 5 MiB part size streams through in bounded memory.
 */
export function blobStoreSuite(name: string, options: BlobStoreSuiteOptions): void {
  const { describe, it } = options;
  const withStore = async (test: (store: BlobStore) => Promise<void>) => {
    const store = await options.create();
    try {
      await test(store);
    } finally {
      await options.destroy?.(store);
    }
  };

  describe(`BlobStore contract: ${name}`, () => {
    it('declares its capabilities, with the optional methods that go with them', () =>
      withStore(async (store) => {
        assert.ok(store.capabilities instanceof Set, 'capabilities is a set');
        if (store.capabilities.has('localPath')) assert.equal(typeof store.localPath, 'function');
        if (store.capabilities.has('presignedGet')) assert.equal(typeof store.presignGet, 'function');
        if (store.capabilities.has('putFile')) assert.equal(typeof store.putFile, 'function');
      }));

    it('stores a local file, through putFile where declared and through the stream callers fall back to otherwise, leaving the file as it was', () =>
      withStore(async (store) => {
        const dir = await mkdtemp(join(tmpdir(), 'va-suite-put-file-'));
        try {
          const file = join(dir, 'result.bin');
          await writeFile(file, 'file bytes');
          const before = await stat(file);
          const untouched = async (when: string) => {
            assert.equal(await readFile(file, 'utf8'), 'file bytes', `the file keeps its bytes ${when}`);
            const now = await stat(file);
            assert.equal(now.size, before.size, `the file keeps its size ${when}`);
            assert.equal(now.mtimeMs, before.mtimeMs, `the file is not written ${when}`);
          };
          // What callers use (results, avatar assets): putFile with the capability, a stream of the file without.
          const fallback = await putLocalFile(store, file, { contentType: 'video/mp4', owner: 'o' }, { id: freshId() });
          assert.equal(fallback.size, 10);
          assert.equal((await store.stat(fallback.id))?.size, 10);
          assert.equal((await readAll(await store.open(fallback.id))).toString(), 'file bytes');
          await untouched('after putLocalFile');
          await store.delete(fallback.id);
          if (!store.capabilities.has('putFile')) {
            // A method nobody calls: callers go by the capability, so an undeclared putFile would never be used.
            assert.equal(store.putFile, undefined, 'a store with a putFile method declares the putFile capability');
            return;
          }
          assert.equal(typeof store.putFile, 'function', 'the putFile capability comes with the method');
          const id = freshId();
          const ref = await store.putFile!(file, { contentType: 'video/mp4', owner: 'o' }, { id });
          assert.deepEqual(ref, { id, contentType: 'video/mp4', size: 10 });
          assert.equal((await store.stat(id))?.size, 10);
          assert.equal((await readAll(await store.open(id))).toString(), 'file bytes');
          await untouched('after putFile');
          await assert.rejects(store.putFile!(file, { contentType: 'video/mp4', owner: 'o' }, { id }), BlobExistsError);
          await untouched('after a refused putFile');
          const missing = freshId();
          await assert.rejects(store.putFile!(join(dir, 'missing.bin'), { contentType: 'video/mp4', owner: 'o' }, { id: missing }));
          assert.equal(await store.stat(missing), undefined);
          // The blob is its own: deleting the file keeps it, deleting it keeps nothing of the file's.
          await rm(file);
          assert.equal((await readAll(await store.open(id))).toString(), 'file bytes');
          await store.delete(id);
          assert.equal(await store.stat(id), undefined);
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      }));

    it('stores a stream and gives back its bytes, size, type and metadata', () =>
      withStore(async (store) => {
        const ref = await store.put(text('hello blob'), { contentType: 'audio/wav', owner: 'owner-1', fileName: 'ünïcode "name".wav' });
        assert.equal(ref.size, 10);
        assert.equal(ref.contentType, 'audio/wav');
        const info = await store.stat(ref.id);
        assert.ok(info);
        assert.equal(info.size, 10);
        assert.equal(info.contentType, 'audio/wav');
        assert.equal(info.meta.owner, 'owner-1');
        assert.equal(info.meta.fileName, 'ünïcode "name".wav');
        assert.equal(info.meta.expiresAt, undefined);
        assert.ok(Math.abs(Date.parse(info.createdAt) - Date.now()) < 60_000, 'createdAt is now');
        assert.equal((await readAll(await store.open(ref.id))).toString(), 'hello blob');
        if (store.capabilities.has('localPath')) assert.ok(await store.localPath!(ref.id));
      }));

    it('reads byte ranges, clamping an end past the last byte, and refuses a range past the end', () =>
      withStore(async (store) => {
        const ref = await store.put(text('0123456789'), { contentType: 'text/plain', owner: 'o' });
        assert.equal((await readAll(await store.open(ref.id, { start: 2, end: 5 }))).toString(), '2345');
        assert.equal((await readAll(await store.open(ref.id, { start: 7, end: 100 }))).toString(), '789');
        await assert.rejects(store.open(ref.id, { start: 10, end: 12 }), RangeError);
        await assert.rejects(store.open(ref.id, { start: 5, end: 2 }), RangeError);
      }));

    it('answers undefined for a missing blob and deletes idempotently', () =>
      withStore(async (store) => {
        const id = freshId();
        assert.equal(await store.stat(id), undefined);
        assert.equal(await store.open(id), undefined);
        await store.delete(id);
        const ref = await store.put(text('x'), { contentType: 'text/plain', owner: 'o' });
        await store.delete(ref.id);
        assert.equal(await store.stat(ref.id), undefined);
        assert.equal(await store.open(ref.id), undefined);
        await store.delete(ref.id);
        if (store.capabilities.has('localPath')) assert.equal(await store.localPath!(ref.id), undefined);
      }));

    it('rejects a taken id with BlobExistsError and keeps the first blob', () =>
      withStore(async (store) => {
        const id = freshId();
        await store.put(text('first'), { contentType: 'text/plain', owner: 'o' }, { id });
        await assert.rejects(store.put(text('second'), { contentType: 'text/plain', owner: 'o' }, { id }), BlobExistsError);
        assert.equal((await readAll(await store.open(id))).toString(), 'first');
      }));

    it('fails a put past maxBytes with BlobTooLargeError and leaves nothing', () =>
      withStore(async (store) => {
        const id = freshId();
        const { stream } = generated(256 * 1024);
        await assert.rejects(store.put(stream, { contentType: 'text/plain', owner: 'o', expiresAt: new Date(0).toISOString() }, { maxBytes: 1000, id }), BlobTooLargeError);
        assert.ok(stream.destroyed, 'the source is destroyed');
        assert.equal(await store.stat(id), undefined);
        assert.ok(!(await store.expired(new Date())).includes(id), 'no expiry is left either');
        const ok = await store.put(text('12345'), { contentType: 'text/plain', owner: 'o' }, { maxBytes: 5 });
        assert.equal(ok.size, 5);
      }));

    it('rejects with the error of a failing source and leaves nothing', () =>
      withStore(async (store) => {
        const id = freshId();
        const failing = new Readable({
          read() {
            this.destroy(new Error('source broke'));
          },
        });
        await assert.rejects(store.put(failing, { contentType: 'text/plain', owner: 'o' }, { id }), /source broke/);
        assert.equal(await store.stat(id), undefined);
      }));

    it('keeps, changes and clears expiries, and lists the due ones', () =>
      withStore(async (store) => {
        const now = Date.now();
        const past = new Date(now - 1_000).toISOString();
        const later = new Date(now + 3_600_000).toISOString();
        const a = await store.put(text('a'), { contentType: 'text/plain', owner: 'o', expiresAt: past });
        const b = await store.put(text('b'), { contentType: 'text/plain', owner: 'o', expiresAt: later });
        const c = await store.put(text('c'), { contentType: 'text/plain', owner: 'o' });
        let due = await store.expired(new Date(now));
        assert.ok(due.includes(a.id) && !due.includes(b.id) && !due.includes(c.id), `due: ${due.join(', ')}`);
        assert.equal((await store.stat(b.id))?.meta.expiresAt, later);
        // Move a into the future, b into the past, c into the past then back to none.
        await store.setExpiry(a.id, later);
        await store.setExpiry(b.id, past);
        await store.setExpiry(c.id, past);
        await store.setExpiry(c.id, undefined);
        assert.equal((await store.stat(a.id))?.meta.expiresAt, later);
        assert.equal((await store.stat(c.id))?.meta.expiresAt, undefined);
        due = await store.expired(new Date(now));
        assert.ok(!due.includes(a.id) && due.includes(b.id) && !due.includes(c.id), `due: ${due.join(', ')}`);
        // Two hours on, a is due too; a deleted blob is never listed again.
        await store.delete(b.id);
        due = await store.expired(new Date(now + 2 * 3_600_000));
        assert.ok(due.includes(a.id) && !due.includes(b.id), `due: ${due.join(', ')}`);
        assert.equal((await readAll(await store.open(a.id))).toString(), 'a', 'setExpiry keeps the bytes');
        await store.setExpiry(freshId(), later); // missing: no error
        await assert.rejects(store.setExpiry(a.id, 'not a date'), RangeError);
      }));

    it(`streams a large file through in bounded memory`, () =>
      withStore(async (store) => {
        const size = options.largeBytes ?? 12 * 1024 * 1024;
        const bound = options.memoryBoundBytes ?? Math.floor((size * 3) / 4);
        const { stream, sha256 } = generated(size);
        const gc = collector();
        gc();
        const baseline = process.memoryUsage().arrayBuffers;
        let peak = 0;
        // Live buffers only: collect first, so garbage not yet collected does not count.
        const sampler = setInterval(() => {
          gc();
          peak = Math.max(peak, process.memoryUsage().arrayBuffers - baseline);
        }, 20);
        let ref;
        try {
          ref = await store.put(stream, { contentType: 'application/octet-stream', owner: 'o' }, { maxBytes: size });
        } finally {
          clearInterval(sampler);
        }
        assert.equal(ref.size, size);
        assert.ok(peak < bound, `a put held ${peak} bytes at once (bound ${bound})`);
        const back = createHash('sha256');
        let read = 0;
        for await (const chunk of (await store.open(ref.id))!) {
          back.update(chunk as Buffer);
          read += (chunk as Buffer).length;
        }
        assert.equal(read, size);
        assert.equal(back.digest('hex'), await sha256);
        const tail = await readAll(await store.open(ref.id, { start: size - 10, end: size - 1 }));
        assert.equal(tail.length, 10);
        await store.delete(ref.id);
      }));
  });
}
