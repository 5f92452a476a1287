import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, afterEach, before, describe, it } from 'node:test';
import { UploadError } from '../../src/core/input/errors.js';
import { receiveUpload, type ReceiveUploadOptions } from '../../src/core/input/multipart.js';
import { startServer } from './helpers/http-server.js';
import { TrackingBlobStore } from './helpers/tracking-blob-store.js';

interface Part {
  name: string;
  filename?: string;
  type?: string;
  data: string | Buffer;
}

const BOUNDARY = '----va-test-boundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function multipart(parts: Part[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
    const head = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** The body as a stream of small chunks, like a socket delivers it. */
function chunked(body: Buffer, size = 1024): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) pieces.push(body.subarray(i, i + size));
  return Readable.from(pieces);
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const OPTS: ReceiveUploadOptions = { owner: 'owner-a', maxBytes: 10_000, retentionMs: 24 * 3600_000, now: () => NOW };

let blobs: TrackingBlobStore;
before(async () => {
  blobs = await TrackingBlobStore.create();
});
after(async () => {
  await blobs.cleanup();
});
afterEach(async () => {
  // Nothing half-written anywhere in the store, whatever the outcome.
  assert.deepEqual((await blobs.entriesOnDisk()).filter((e) => e.startsWith('tmp/put-')), []);
});

function uploadError(code: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof UploadError, `expected UploadError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

async function assertNothingNewStored(run: () => Promise<unknown>): Promise<void> {
  const before = (await blobs.live()).length;
  await run();
  assert.equal((await blobs.live()).length, before, 'no blob left behind');
}

describe('receiveUpload', () => {
  it('stores the one file part with owner, name, type and expiry', async () => {
    const data = Buffer.alloc(5000, 7);
    const body = multipart([
      { name: 'note', data: 'ignored field' },
      { name: 'file', filename: 'C:\\Users\\me\\speech take 1.wav', type: 'audio/wav', data },
    ]);
    const got = await receiveUpload(chunked(body), { 'content-type': CONTENT_TYPE }, blobs, OPTS);
    assert.deepEqual({ fileName: got.fileName, contentType: got.contentType, size: got.blob.size }, {
      fileName: 'speech take 1.wav',
      contentType: 'audio/wav',
      size: 5000,
    });
    const info = await blobs.stat(got.blob.id);
    assert.deepEqual(info?.meta, {
      owner: 'owner-a',
      contentType: 'audio/wav',
      fileName: 'speech take 1.wav',
      expiresAt: '2030-01-02T00:00:00.000Z',
    });
    const stored = await blobs.open(got.blob.id);
    assert.ok(stored);
    assert.equal(Buffer.from(await text(stored), 'latin1').length, 5000);
  });

  it('accepts a file of exactly maxBytes', async () => {
    const body = multipart([{ name: 'file', filename: 'a.mp3', data: Buffer.alloc(OPTS.maxBytes, 1) }]);
    const got = await receiveUpload(chunked(body), { 'content-type': CONTENT_TYPE }, blobs, OPTS);
    assert.equal(got.blob.size, OPTS.maxBytes);
    assert.equal(got.contentType, 'text/plain', "busboy's default for a part without Content-Type");
  });

  it('refuses a body without a file part, or with the file under another name', async () => {
    const onlyField = multipart([{ name: 'file', data: 'a field, not a file' }]);
    await assert.rejects(receiveUpload(chunked(onlyField), { 'content-type': CONTENT_TYPE }, blobs, OPTS), uploadError('missing_file'));
    const wrongName = multipart([{ name: 'audio', filename: 'a.mp3', data: 'abc' }]);
    await assertNothingNewStored(() =>
      assert.rejects(receiveUpload(chunked(wrongName), { 'content-type': CONTENT_TYPE }, blobs, OPTS), uploadError('missing_file')),
    );
  });

  it('refuses more than one file and keeps none', async () => {
    const two = multipart([
      { name: 'file', filename: 'a.mp3', data: 'first' },
      { name: 'file', filename: 'b.mp3', data: 'second' },
    ]);
    await assertNothingNewStored(() =>
      assert.rejects(receiveUpload(chunked(two), { 'content-type': CONTENT_TYPE }, blobs, OPTS), uploadError('too_many_files')),
    );
  });

  it('refuses what is not multipart', async () => {
    for (const type of [undefined, 'application/json', 'multipart/form-data']) {
      const headers = type === undefined ? {} : { 'content-type': type };
      await assert.rejects(receiveUpload(Readable.from(['{}']), headers, blobs, OPTS), uploadError('not_multipart'));
    }
  });

  it('refuses a body cut off before its end', async () => {
    const cut = multipart([{ name: 'file', filename: 'a.mp3', data: Buffer.alloc(3000, 2) }], { close: false });
    await assertNothingNewStored(() =>
      assert.rejects(receiveUpload(chunked(cut), { 'content-type': CONTENT_TYPE }, blobs, OPTS), uploadError('not_multipart')),
    );
  });

  it('refuses at once a declared length far over the limit, and drains the request', async () => {
    let read = false;
    const stream = new Readable({
      read() {
        read = true;
        this.push(null);
      },
    });
    const headers = { 'content-type': CONTENT_TYPE, 'content-length': String(50 * 2 ** 20) };
    await assert.rejects(receiveUpload(stream, headers, blobs, { ...OPTS, maxBytesOption: 'limits.maxUploadBytes' }), (e: unknown) => {
      uploadError('too_large')(e);
      assert.equal((e as UploadError).httpStatus, 413);
      assert.equal((e as UploadError).message, 'the request body is 50 MiB; at most 9.8 KiB (10000 bytes) is accepted (limits.maxUploadBytes)');
      return true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(read, true, 'the stream is drained so the client can be answered');
  });

  it('refuses a file over maxBytes by counting, and keeps nothing', async () => {
    const body = multipart([{ name: 'file', filename: 'big.wav', data: Buffer.alloc(OPTS.maxBytes + 1, 3) }]);
    await assertNothingNewStored(() =>
      assert.rejects(receiveUpload(chunked(body), { 'content-type': CONTENT_TYPE }, blobs, { ...OPTS, maxBytesOption: 'limits.maxUploadBytes' }), (e: unknown) => {
        uploadError('too_large')(e);
        assert.equal((e as UploadError).message, 'the file is larger than 9.8 KiB (10000 bytes); at most 9.8 KiB (10000 bytes) is accepted (limits.maxUploadBytes)');
        return true;
      }),
    );
  });

  it('lets an HTTP client that is still sending read the 413', async () => {
    const server = await startServer((req, res) => {
      const headers = { 'content-type': req.headers['content-type'] };
      receiveUpload(req, headers, blobs, { ...OPTS, maxBytes: 100_000 }).then(
        () => res.writeHead(201).end('stored'),
        (error: UploadError) => res.writeHead(error.httpStatus, { connection: 'close' }).end(error.code),
      );
    });
    try {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${server.origin}/upload`, { method: 'POST', headers: { 'content-type': CONTENT_TYPE } }, (res) => {
          text(res).then((body) => resolve({ status: res.statusCode ?? 0, body }), reject);
        });
        req.on('error', reject);
        // 2 MB, sent chunked (no Content-Length), far past the 100 kB limit.
        req.write(multipart([{ name: 'file', filename: 'big.wav', data: Buffer.alloc(2_000_000, 4) }], { close: false }));
        req.end(`--${BOUNDARY}--\r\n`);
      });
      assert.deepEqual(answer, { status: 413, body: 'too_large' });
    } finally {
      await server.close();
    }
  });
});
