/**
 * Faults at the HTTP edge (issue #10, items 1, 6 and 8 in part), on real Express and Koa servers on 127.0.0.1:
 * crafted names in signed links, names that try to change what a link serves, `nosniff`, an oversized chunked
 * JSON body on a keep-alive connection, a failing `authenticate` hook, file streams that fail before or during an
 * answer and a client that leaves mid-download. After each test the server must still answer, and the process must
 * have seen no unhandled rejection or uncaught exception.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, afterEach, before, describe, it } from 'node:test';
import { parse as parseContentDisposition } from 'content-disposition';
import express from 'express';
import { virtualAnchor } from '../../src/index.js';
import { LinkBuilder } from '../../src/core/links.js';
import type { BlobRef } from '../../src/domain/job.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import type { ListQuery } from '../../src/domain/job.js';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { MemoryIdempotencyStore } from '../../src/storage/memory-idempotency-store.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/checks.js';
import { RecordingLogger, assertJsonError, recordProcessFaults, send } from './http-faults.js';

const process$ = recordProcessFaults();
const SECRET = 'edge-test-signing-secret-0123456789';
const MAX_JSON = 1024;
const HOUR = 3_600_000;

/** How a {@link FaultyBlobStore} serves a blob. */
type OpenFault = 'failed_already' | 'fails_at_once' | 'fails_midway' | 'endless';

/** The real filesystem store, whose `open()` streams can be told to fail; it remembers the streams it handed out. */
class FaultyBlobStore extends FsBlobStore {
  readonly faults = new Map<string, OpenFault>();
  readonly opened: Readable[] = [];

  override async open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    const fault = this.faults.get(id);
    if (!fault) return super.open(id, range);
    const stream = new PassThrough();
    this.opened.push(stream);
    if (fault === 'failed_already') stream.destroy(new Error('disk read failed at open (test double)'));
    else if (fault === 'fails_at_once') setImmediate(() => stream.destroy(new Error('disk read failed (test double)')));
    else if (fault === 'fails_midway') {
      stream.write(Buffer.alloc(32 * 1024, 1));
      setTimeout(() => stream.destroy(new Error('disk read failed midway (test double)')), 50);
    } else {
      // Never ends: a download the client abandons.
      const timer = setInterval(() => stream.write(Buffer.alloc(16 * 1024, 2)), 5);
      stream.on('close', () => clearInterval(timer));
    }
    return stream;
  }
}

/** Names sent in the path of a link, percent-encoded as a client would; each once made Express's host exit. */
const CRAFTED_SEGMENTS = ['%C4%80.png', '%00.png', '%7F.png', '%0B.png', '%F0%9F%98%80.png', '%0D%0Aset-cookie%3A%20x.png', '%E0%A4%A.png'];

/** Names the service itself may sign (decoded), and the download name each must be served under. */
const SIGNED_NAMES: [name: string, served: string][] = [
  ['Ā.png', 'Ā.png'],
  ['\u0000.png', '\uFFFD.png'],
  ['\u007f.png', '\uFFFD.png'],
  ['\u000b.png', '\uFFFD.png'],
  ['😀.png', '😀.png'],
  ['\uD800.png', '\uFFFD.png'],
  ['say "hi"\\ü.mp4', 'say "hi"\\ü.mp4'],
];

const CONTENT = randomBytes(64 * 1024);

for (const adapter of ADAPTERS) {
  describe(`HTTP edge faults over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let store: FaultyBlobStore;
    let storeDir: string;
    let logs: RecordingLogger;
    let links: LinkBuilder;
    let blob: BlobRef;
    /** The path and query of a link (the part after the origin). */
    const pathOf = (link: string) => link.slice(app.origin.length);
    const put = async (fault?: OpenFault) => {
      const ref = await store.put(Readable.from([CONTENT]), { contentType: 'video/mp4', owner: 'system' });
      if (fault) store.faults.set(ref.id, fault);
      return ref;
    };
    /** The server still answers a plain request. */
    const assertAlive = async () => {
      const answer = await send(app.origin, '/v1/openapi.json');
      assert.equal(answer.status, 200, 'the server no longer answers');
    };

    before(async () => {
      storeDir = await mkdtemp(join(tmpdir(), `va-edge-${adapter}-`));
      store = new FaultyBlobStore(storeDir);
      logs = new RecordingLogger();
      app = await makeApp(adapter, {
        signingSecret: SECRET,
        avatars: { builtIn: false },
        logger: logs,
        limits: { maxJsonBytes: MAX_JSON },
        backends: { blobStore: store },
      });
      links = new LinkBuilder(new UrlSigner(Buffer.from(SECRET)), app.origin, HOUR);
      blob = await put();
    });
    after(async () => {
      await app.close();
      await rm(storeDir, { recursive: true, force: true });
    });
    afterEach(() => process$.assertNone());

    it('answers crafted names in a signed link with 403 invalid_signature and keeps serving', async () => {
      const link = pathOf(links.to(blob, 'clip.mp4'));
      assert.match(link, /\/clip\.mp4\?/);
      for (const segment of CRAFTED_SEGMENTS) {
        const answer = await send(app.origin, link.replace('/clip.mp4?', `/${segment}?`));
        assertJsonError(answer, 403, 'invalid_signature');
        assert.equal(answer.headers['content-disposition'], undefined);
        await assertAlive();
      }
      const genuine = await send(app.origin, link);
      assert.equal(genuine.status, 200);
      assert.ok(genuine.body.equals(CONTENT));
    });

    it('serves names it signed itself under a valid Content-Disposition with filename*', async () => {
      for (const [name, served] of SIGNED_NAMES) {
        const answer = await send(app.origin, pathOf(links.to(blob, name)));
        assert.equal(answer.status, 200, `${JSON.stringify(name)}: ${answer.body.toString().slice(0, 200)}`);
        assert.ok(answer.body.equals(CONTENT));
        const header = String(answer.headers['content-disposition']);
        assert.match(header, /^inline; filename="[\x20-\x7e]*"; filename\*=UTF-8''[\x21-\x7e]+$/, header);
        const parsed = parseContentDisposition(header);
        assert.equal(parsed.type, 'inline');
        assert.equal(parsed.parameters.filename, served, header);
        await assertAlive();
      }
    });

    it('never lets the name of a link change what it serves', async () => {
      const named = pathOf(links.to(blob, 'clip.mp4'));
      for (const segment of ['evil.html', '..%2F..%2Fsigning-secret', 'clip.mp4%2F..%2F..%2Fsigning-secret']) {
        assertJsonError(await send(app.origin, named.replace('/clip.mp4?', `/${segment}?`)), 403, 'invalid_signature');
      }
      // A link signed without a name (the `/files/:id` shape) ignores a name added to it.
      const bare = pathOf(links.to(blob));
      const added = await send(app.origin, bare.replace('?', '/evil.html?'));
      assert.equal(added.status, 200);
      assert.equal(added.headers['content-type'], 'video/mp4');
      assert.equal(added.headers['content-disposition'], undefined);
      assert.ok(added.body.equals(CONTENT));
      // The id is covered by the signature whatever the name says.
      const other = await put();
      assertJsonError(await send(app.origin, named.replace(blob.id, other.id)), 403, 'invalid_signature');
    });

    it('sends X-Content-Type-Options: nosniff on every answer, JSON and files', async () => {
      const link = pathOf(links.to(blob, 'clip.mp4'));
      const answers = [
        await send(app.origin, '/v1/openapi.json'),
        await send(app.origin, '/v2/avatar'),
        await send(app.origin, '/v2/avatar', { headers: { key: KEYS.a } }),
        await send(app.origin, '/v1/openapi.json', { method: 'POST' }),
        await send(app.origin, link),
        await send(app.origin, link, { headers: { range: 'bytes=0-99' } }),
        await send(app.origin, link, { headers: { range: 'bytes=999999-' } }),
        await send(app.origin, link, { method: 'HEAD' }),
      ];
      assert.deepEqual(answers.map((a) => a.status), [200, 403, 200, 405, 200, 206, 416, 200]);
      for (const answer of answers) assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    });

    it('answers Range headers: one range 206, a suffix longer than the file the whole file, several ranges or another unit 200, outside 416', async () => {
      const link = pathOf(links.to(blob, 'clip.mp4'));
      const size = CONTENT.length;
      const ranged = async (range: string) => {
        const answer = await send(app.origin, link, { headers: { range } });
        return { status: answer.status, contentRange: answer.headers['content-range'], body: answer.body };
      };
      assert.deepEqual(await ranged('bytes=10-19'), { status: 206, contentRange: `bytes 10-19/${size}`, body: CONTENT.subarray(10, 20) });
      assert.deepEqual(await ranged('bytes=-10'), { status: 206, contentRange: `bytes ${size - 10}-${size - 1}/${size}`, body: CONTENT.subarray(size - 10) });
      assert.deepEqual(await ranged(`bytes=-${size * 2}`), { status: 206, contentRange: `bytes 0-${size - 1}/${size}`, body: CONTENT });
      assert.deepEqual(await ranged(`bytes=${size - 5}-${size * 2}`), { status: 206, contentRange: `bytes ${size - 5}-${size - 1}/${size}`, body: CONTENT.subarray(size - 5) });
      for (const whole of ['bytes=0-1,5-9', `bytes=0-1,${size * 2}-`, 'items=0-9', 'bytes=x-9', 'bytes=-']) {
        assert.deepEqual(await ranged(whole), { status: 200, contentRange: undefined, body: CONTENT }, whole);
      }
      for (const outside of [`bytes=${size}-`, 'bytes=9-3', 'bytes=-0']) {
        const answer = await ranged(outside);
        assert.deepEqual([answer.status, answer.contentRange], [416, `bytes */${size}`], outside);
      }
    });

    it('answers an oversized chunked JSON body with 413 and then serves the next request on the same connection', async () => {
      const socket = await open(app.origin);
      try {
        const chunk = 'x'.repeat(16 * 1024);
        const head = 'POST /v2/2davatar HTTP/1.1\r\nHost: edge\r\nkey: ' + KEYS.a + '\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
        // 200 KB in 16 KB chunks: far over the 1 KB limit, within what the server reads off.
        socket.write(head + `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(12) + '0\r\n\r\n');
        const first = await socket.answer();
        assert.equal(first.status, 413, first.text);
        assert.match(first.text, /"code":"payload_too_large"/);
        assert.match(first.text, /"message":"the JSON body is larger than 1 KiB; at most 1 KiB is accepted \(limits\.maxJsonBytes\)"/);
        assert.doesNotMatch(first.head, /connection: close/i);
        socket.write('GET /v1/openapi.json HTTP/1.1\r\nHost: edge\r\n\r\n');
        const second = await socket.answer();
        assert.equal(second.status, 200, 'no answer to the second request on the same connection');
      } finally {
        socket.destroy();
      }
      await assertAlive();
    });

    it('closes the connection after the 413 when an oversized chunked body goes on and on', async () => {
      const socket = await open(app.origin);
      try {
        socket.write('POST /v2/2davatar HTTP/1.1\r\nHost: edge\r\nkey: ' + KEYS.a + '\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
        const chunk = 'y'.repeat(64 * 1024);
        // Keep sending (up to 8 MB) until the server answers; it must not read all of it.
        let sent = 0;
        const pump = setInterval(() => {
          if (socket.destroyed || sent > 8 * 1024 * 1024) return clearInterval(pump);
          socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
          sent += chunk.length;
        }, 2);
        const first = await socket.answer();
        clearInterval(pump);
        assert.equal(first.status, 413, first.text);
        assert.match(first.head, /connection: close/i);
        await waitFor('the server to close the connection', async () => (socket.closedByPeer() ? true : undefined), 10_000);
        assert.ok(sent < 8 * 1024 * 1024, `the server read ${sent} bytes of an oversized body`);
      } finally {
        socket.destroy();
      }
      await assertAlive();
    });

    it('cuts long upload names at a character boundary, to at most 255 bytes of UTF-8', async () => {
      const cases: [sent: string, kept: string][] = [
        [`a${'😀'.repeat(100)}.wav`, `a${'😀'.repeat(63)}`],
        [`ab${'😀'.repeat(100)}.wav`, `ab${'😀'.repeat(63)}`],
        ['é'.repeat(200), 'é'.repeat(127)],
        [`${'x'.repeat(254)}€.wav`, 'x'.repeat(254)],
      ];
      for (const [sent, kept] of cases) {
        const body = Buffer.from(`--B0\r\nContent-Disposition: form-data; name="file"; filename="${sent}"\r\n\r\nRIFF\r\n--B0--\r\n`, 'utf8');
        const answer = await send(app.origin, '/v1/uploads', {
          method: 'POST',
          headers: { key: KEYS.a, 'content-type': 'multipart/form-data; boundary=B0', 'content-length': String(body.length) },
          body,
        });
        assert.equal(answer.status, 201, answer.body.toString());
        const { fileName, uid } = JSON.parse(answer.body.toString('utf8')) as { fileName: string; uid: string };
        assert.equal(Buffer.from(fileName, 'utf8').toString('utf8'), fileName, 'the name holds a lone surrogate');
        assert.ok(Buffer.byteLength(fileName) <= 255, `${Buffer.byteLength(fileName)} bytes`);
        assert.equal(fileName, kept);
        const stored = await send(app.origin, `/v1/uploads/${uid}`, { headers: { key: KEYS.a } });
        assert.equal((JSON.parse(stored.body.toString('utf8')) as { fileName: string }).fileName, kept);
      }
    });

    it('answers a file whose stream fails before its first byte with the JSON 500, and logs it', async () => {
      for (const fault of ['failed_already', 'fails_at_once'] as const) {
        const failing = await put(fault);
        const before = logs.problems(/answer failed/).length;
        const answer = await send(app.origin, pathOf(links.to(failing, 'clip.mp4')));
        assertJsonError(answer, 500, 'internal_error');
        assert.equal(answer.headers['content-disposition'], undefined, 'headers of the failed answer were left');
        assert.equal(logs.problems(/answer failed/).length, before + 1, 'the failure was not logged once');
        await assertAlive();
      }
    });

    it('cuts the connection when a file stream fails midway, logs it and keeps serving', async () => {
      const failing = await put('fails_midway');
      const before = logs.problems(/answer failed/).length;
      const answer = await send(app.origin, pathOf(links.to(failing, 'clip.mp4')));
      assert.equal(answer.status, 200);
      assert.equal(answer.complete, false, 'a cut-off file was reported complete');
      assert.ok(answer.body.length < CONTENT.length);
      await waitFor('the log line', async () => (logs.problems(/answer failed/).length > before ? true : undefined), 5_000);
      assert.ok(store.opened.at(-1)!.destroyed);
      await assertAlive();
    });

    it('closes the file stream when the client leaves mid-download', async () => {
      const endless = await put('endless');
      const socket = await open(app.origin);
      socket.write(`GET ${pathOf(links.to(endless, 'clip.mp4'))} HTTP/1.1\r\nHost: edge\r\n\r\n`);
      await waitFor('some bytes of the download', async () => (socket.received() > 64 * 1024 ? true : undefined), 10_000);
      socket.destroy();
      const stream = store.opened.at(-1)!;
      await waitFor('the file stream to be closed', async () => (stream.destroyed ? true : undefined), 10_000);
      await assertAlive();
    });
  });

  describe(`a failing authenticate hook over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let logs: RecordingLogger;
    before(async () => {
      logs = new RecordingLogger();
      app = await makeApp(adapter, {
        apiKeys: undefined,
        avatars: { builtIn: false },
        logger: logs,
        authenticate: (key) => {
          if (key === 'throws') throw new Error('key database is down (test)');
          if (key === 'rejects') return Promise.reject(new Error('key database timed out (test)'));
          return key === 'good';
        },
      });
    });
    after(() => app.close());
    afterEach(() => process$.assertNone());

    it('answers 503 unavailable with retry-after and logs why, for a hook that throws or rejects', async () => {
      for (const key of ['throws', 'rejects']) {
        const before = logs.problems(/authenticate/).length;
        const answer = await send(app.origin, '/v2/avatar', { headers: { key } });
        assertJsonError(answer, 503, 'unavailable');
        assert.match(String(answer.headers['retry-after']), /^\d+$/);
        assert.equal(logs.problems(/authenticate/).length, before + 1, 'the hook failure was not logged once');
      }
      assertJsonError(await send(app.origin, '/v2/avatar', { headers: { key: 'wrong' } }), 403, 'forbidden');
      assert.equal((await send(app.origin, '/v2/avatar', { headers: { key: 'good' } })).status, 200);
    });
  });
}

describe('Express: a next() that throws', { timeout: SUITE_TIMEOUT_MS }, () => {
  let app: TestApp;
  let server: Server;
  let origin: string;
  const logs = new RecordingLogger();
  before(async () => {
    app = await makeApp('express', { avatars: { builtIn: false }, logger: logs });
    const middleware = virtualAnchor(app.instance);
    const host = express();
    host.use((req, res) => middleware(req, res, () => {
      throw new Error('the next handler failed (test)');
    }));
    server = createServer(host);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  });
  afterEach(() => process$.assertNone());

  it('answers the JSON 500 and logs it, with no unhandled rejection', async () => {
    assertJsonError(await send(origin, '/not-the-middleware'), 500, 'internal_error');
    assert.equal(logs.problems(/request failed/).length, 1);
    assert.equal((await send(origin, '/v1/openapi.json')).status, 200);
  });
});

/** What a store throws when its backend cannot be reached (matched by name, as the core does). */
class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** The in-memory job store, whose lists fail as an unreachable Redis would while `down` is set. */
class FlakyJobStore extends MemoryJobStore {
  down = false;
  override async list(query: ListQuery) {
    if (this.down) throw new StoreUnavailableError('connection refused (test double)');
    return super.list(query);
  }
}

for (const adapter of ADAPTERS) {
  describe(`a job store that cannot be reached, over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    const jobs = new FlakyJobStore();
    before(async () => {
      app = await makeApp(adapter, { avatars: { builtIn: false }, backends: { jobStore: jobs, idempotencyStore: new MemoryIdempotencyStore() } });
    });
    after(() => app.close());
    afterEach(() => process$.assertNone());

    it('answers 503 unavailable with retry-after, then serves again once the store is back', async () => {
      jobs.down = true;
      const answer = await send(app.origin, '/v2/2davatar', { headers: { key: KEYS.a } });
      assertJsonError(answer, 503, 'unavailable');
      assert.match(String(answer.headers['retry-after']), /^\d+$/);
      jobs.down = false;
      assert.equal((await send(app.origin, '/v2/2davatar', { headers: { key: KEYS.a } })).status, 200);
    });
  });
}

/** A raw keep-alive connection that parses the answers (Content-Length bodies) it receives, one at a time. */
interface RawConnection extends Socket {
  /** The next complete answer. */
  answer(): Promise<{ status: number; head: string; text: string }>;
  /** Bytes received so far. */
  received(): number;
  /** Whether the server closed the connection. */
  closedByPeer(): boolean;
}

function open(origin: string): Promise<RawConnection> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname) as RawConnection;
    let buffer = Buffer.alloc(0);
    let total = 0;
    let ended = false;
    let wake: (() => void) | undefined;
    socket.on('data', (data: Buffer) => {
      total += data.length;
      // Only answers are kept; a download's body is counted, not stored.
      if (buffer.length < 1024 * 1024) buffer = Buffer.concat([buffer, data]);
      wake?.();
    });
    socket.on('error', () => undefined); // the server may reset a connection it closed while we still sent
    socket.on('close', () => {
      ended = true;
      wake?.();
    });
    socket.received = () => total;
    socket.closedByPeer = () => ended;
    socket.answer = async () => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd >= 0) {
          const head = buffer.subarray(0, headEnd).toString('latin1');
          const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (buffer.length >= headEnd + 4 + length) {
            const text = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
            buffer = buffer.subarray(headEnd + 4 + length);
            return { status: Number(head.split(' ')[1]), head, text };
          }
        }
        if (ended) throw new Error('the connection closed before a complete answer');
        if (Date.now() > deadline) throw new Error('no complete answer within 10 s');
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    };
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}
