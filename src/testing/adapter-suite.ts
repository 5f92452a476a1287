import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createVirtualAnchor, type VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import type { CoreResponse } from '../core/http/types.js';
import { LinkBuilder } from '../core/links.js';
import type { BlobRef } from '../domain/job.js';
import { FsBlobStore } from '../storage/fs-blob-store.js';
import { MemoryJobStore } from '../storage/memory-job-store.js';
import { MemoryIdempotencyStore } from '../storage/memory-idempotency-store.js';
import { UrlSigner } from '../storage/url-signer.js';
import type { SuiteRunner } from './suite-runner.js';
import { toneWav } from './wav.js';
import { eventually } from './eventually.js';

/** A host the adapter under test runs in, when `mount` gives more than a listening `http.Server`. */
export interface AdapterHost {
  /** Where the API answers, e.g. `http://127.0.0.1:4000` (with the mount prefix, if the host mounts it under one). */
  url: string;
  /** Stops the host, closing its open connections. */
  close(): Promise<void>;
}

/** What {@link AdapterSuiteOptions.mount} is asked to set up. */
export interface MountSettings {
  /**
   * Put the framework's JSON body parser in front of the middleware (`express.json()`, `@koa/bodyparser`,
   * `@fastify/formbody`…), as a host app often does. A framework without one parses `application/json` bodies
   * itself when this is set and hands the result to the core as `parsedBody`.
   */
  jsonBodyParser: boolean;
  /**
   * The host's own handler for what the middleware does not serve: mount it after the middleware (Express
   * `app.use((req, res) => fallback(req, res))`, Koa `ctx.respond = false; fallback(ctx.req, ctx.res)`). It answers
   * 404 with `x-adapter-suite: host-fallback`, which shows that the request reached the host.
   */
  fallback(req: IncomingMessage, res: ServerResponse): void;
}

/** Options of {@link adapterSuite}. */
export interface AdapterSuiteOptions extends SuiteRunner {
  /**
   * Mounts `instance` in a fresh host app of your framework, as your adapter does, and starts it listening on a
   * loopback port: return the listening `http.Server` (the suite closes it) or an {@link AdapterHost}. Called once
   * per test; the suite closes the host, then the instance.
   */
  mount(instance: VirtualAnchor, settings: MountSettings): Promise<Server | AdapterHost>;
  /**
   * Options merged into the instance the suite builds (`ffprobePath`, `logger`…). The suite's own choices win:
   * its key check, stores, limits and disabled engines.
   */
  instanceOptions?: Partial<VirtualAnchorOptions>;
}

/** The API key the suite's instances accept. */
const KEY = 'adapter-suite-key';
/** A key whose check fails (the `authenticate` hook throws): the answer is 503 with `retry-after`. */
const UNCHECKABLE_KEY = 'adapter-suite-key-check-fails';
const SECRET = 'adapter-suite-signing-secret-0123456789';
const UPLOAD_LIMIT = 6 * 1024 * 1024;
/** A path the suite adds to the instance: its answer has a header Node refuses to write. */
const UNWRITABLE_PATH = '/__adapter-suite/unwritable-header';
/** A path the suite adds to the instance: a file answer that never ends (a client has to leave it). */
const ENDLESS_PATH = '/__adapter-suite/endless-file';
/** A path the suite adds to the instance: reads the body, then holds the answer `?holdMs` or until the request's signal aborts. */
const SIGNAL_PATH = '/__adapter-suite/signal';
const FALLBACK_HEADER = 'x-adapter-suite';

/** The host's fallback: 404 with a header that only it sends. */
function hostFallback(_req: IncomingMessage, res: ServerResponse): void {
  res.statusCode = 404;
  res.setHeader(FALLBACK_HEADER, 'host-fallback');
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end('not found (host)');
}

/** A running host with the suite's instance, its blob store and a link signer for that store. */
interface Running {
  url: string;
  blobs: FsBlobStore;
  links: LinkBuilder;
  /** File streams the instance handed out on {@link UNWRITABLE_PATH} and {@link ENDLESS_PATH}. */
  suiteStreams: Readable[];
  /** The `signal` of each request to {@link SIGNAL_PATH} (`undefined` where the adapter gave none), once its body was read. */
  suiteSignals: (AbortSignal | undefined)[];
}

/** What the suite's checks read of an answer. */
interface Answer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** One request with global fetch; the whole body is read. Rejects when no answer comes within `timeoutMs`. */
async function call(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Answer> {
  const { timeoutMs = 30_000, ...rest } = init;
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs), ...rest });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function jsonOf(answer: Answer): Record<string, unknown> {
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, `not JSON (${answer.status}): ${answer.body.toString().slice(0, 200)}`);
  return JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
}

/** The documented error answer `{ error: { code, message, details? } }` with `nosniff`, of `status` and `code`. */
function assertError(answer: Answer, status: number, code: string): Record<string, unknown> {
  const text = answer.body.toString('utf8');
  assert.equal(answer.status, status, `expected ${status} ${code}, got ${answer.status}: ${text.slice(0, 300)}`);
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
  const body = jsonOf(answer) as { error?: Record<string, unknown> };
  assert.deepEqual(Object.keys(body), ['error'], text);
  assert.equal(body.error!.code, code, text);
  assert.equal(typeof body.error!.message, 'string', text);
  return body.error!;
}

function assertFromHost(answer: Answer): void {
  assert.equal(answer.status, 404);
  assert.equal(answer.headers.get(FALLBACK_HEADER), 'host-fallback', 'the request did not reach the host after the middleware');
}

/** Uploads `bytes` as the multipart part `file`. */
function upload(url: string, bytes: Buffer, name = 'speech.wav', type = 'audio/wav'): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return call(`${url}/v1/uploads`, { method: 'POST', headers: { key: KEY }, body: form });
}

/** A stream of `size` bytes made as read. */
function generated(size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= size) return void this.push(null);
      const chunk = Buffer.alloc(Math.min(256 * 1024, size - sent), sent % 251);
      sent += chunk.length;
      this.push(chunk);
    },
  });
}

/** Starts a download, reads at least `bytes` of it, and leaves (the connection is aborted). */
async function leaveMidway(link: string, bytes: number): Promise<void> {
  const leaving = new AbortController();
  const res = await fetch(link, { signal: leaving.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  let received = 0;
  while (received < bytes) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the download ended after ${received} bytes`);
    received += value.length;
  }
  leaving.abort();
  await reader.cancel().catch(() => 'the download was aborted');
}

/** Records unhandled rejections and uncaught exceptions while a test runs (with a listener, Node does not exit). */
function watchProcess(): { stop(): void; faults: unknown[] } {
  const faults: unknown[] = [];
  const record = (fault: unknown) => faults.push(fault);
  process.on('unhandledRejection', record);
  process.on('uncaughtException', record);
  return {
    faults,
    stop() {
      process.off('unhandledRejection', record);
      process.off('uncaughtException', record);
    },
  };
}

/** A file stream that never ends: 64 KiB chunks as fast as they are read, until destroyed. */
function endless(): Readable {
  return new Readable({
    read() {
      this.push(Buffer.alloc(64 * 1024, 7));
    },
  });
}

/**
 * The instance, plus two paths of the suite's own (every other request goes to the instance):
 * - {@link UNWRITABLE_PATH}: a JSON answer (`?kind=json`) or a file answer (`?kind=stream`) with a header that Node
 *   refuses to write (a line break in its value). The core itself never answers so (it checks every header), but a
 *   write can still throw in a host (a framework or another middleware that already sent the head); this path checks
 *   that the adapter guards its writes;
 * - {@link ENDLESS_PATH}: a file answer that never ends, to check that the adapter destroys the file stream of a
 *   client that leaves (else every abandoned download would hold a file open for ever);
 * - {@link SIGNAL_PATH}: reads the body, records the request's `signal` in `signals`, and answers
 *   `{ signal, aborted }` after `?holdMs` or once the signal aborts, to check that the adapter's signal aborts when
 *   the client leaves and only then (not once the body has been read).
 */
function withSuitePaths(instance: VirtualAnchor, streams: Readable[], signals: (AbortSignal | undefined)[]): VirtualAnchor {
  return {
    ...instance,
    handle: async (request) => {
      if (request.path === SIGNAL_PATH) {
        if (!request.bodyStream.readableEnded) for await (const chunk of request.bodyStream) void chunk;
        const { signal } = request;
        signals.push(signal);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Number(request.query.get('holdMs') ?? 0));
          signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
        return { status: 200, headers: { 'content-type': 'application/json' }, kind: 'json', body: { signal: signal !== undefined, aborted: signal?.aborted ?? false } } satisfies CoreResponse;
      }
      if (request.path === ENDLESS_PATH) {
        const body = endless();
        streams.push(body);
        return { status: 200, headers: { 'content-type': 'application/octet-stream' }, kind: 'stream', body } satisfies CoreResponse;
      }
      if (request.path !== UNWRITABLE_PATH) return instance.handle(request);
      const headers = { 'content-type': 'application/json', 'x-adapter-suite-unwritable': 'line\r\nbreak' };
      if (request.query.get('kind') !== 'stream') return { status: 200, headers, kind: 'json', body: { unwritable: true } } satisfies CoreResponse;
      const body = generated(1024 * 1024);
      streams.push(body);
      return { status: 200, headers: { ...headers, 'content-type': 'application/octet-stream' }, kind: 'stream', body } satisfies CoreResponse;
    },
  };
}

/**
 * The contract an HTTP adapter keeps, as a test suite for node:test, vitest or mocha, over real HTTP (global
 * `fetch`) against the host app that your `mount` starts. For someone who writes an adapter for another framework
 * (Fastify, Hono, raw `node:http`): copy the request into a `CoreRequest`, call `instance.handle`, write its answer
 * with `sendResponse` (or as carefully), and call the host's next handler when `handle` answers `undefined`.
 *
 * Each test builds a fresh instance with in-package parts only: the memory job store, the filesystem blob store in a
 * temporary folder, no avatars, and the engines off (`lipSync: false, separation: false`), so only routes that need no
 * engine are used. It checks that:
 * - a path that is not the middleware's reaches the host's fallback (with and without a body parser);
 * - JSON answers and the error shape `{ error: { code, message } }` come with their status and headers:
 *   `x-content-type-options: nosniff` everywhere, `allow` on 405, `retry-after` on 429 and 503;
 * - a JSON body parser in front of the middleware is tolerated (a job is created from a parsed body);
 * - multipart uploads stream through whole, and one over the limit is refused with 413;
 * - signed file links answer 200 and 206 with ranges, 416 out of range, HEAD without a body, 403 on a bad signature;
 * - a client that leaves mid-download, and an answer whose header cannot be written, crash nothing (no unhandled
 *   rejection or uncaught exception) and the host goes on serving;
 * - the request's `signal` aborts when its client leaves before the answer, and not otherwise (so that its input
 *   checks still waiting for their turn are dropped).
 *
 * @example
 * ```ts
 * import { describe, it } from 'node:test';
 * import { createServer } from 'node:http';
 * import { adapterSuite } from 'virtual-anchor/testing';
 *
 * adapterSuite('my adapter', {
 *   describe, it,
 *   async mount(instance, { fallback }) {
 *     const server = createServer(myAdapter(instance, fallback));
 *     await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
 *     return server;
 *   },
 * });
 * ```
 */
export function adapterSuite(name: string, options: AdapterSuiteOptions): void {
  const { describe, it } = options;

  /** Runs `test` against a fresh instance mounted by the adapter; closes both and checks the process saw no fault. */
  const withHost = async (settings: { jsonBodyParser?: boolean }, test: (running: Running) => Promise<void>): Promise<void> => {
    const dir = await mkdtemp(join(tmpdir(), 'va-adapter-suite-'));
    const blobs = new FsBlobStore(join(dir, 'blobs'));
    const instance = createVirtualAnchor({
      ...options.instanceOptions,
      apiKeys: undefined,
      authenticate: (key) => {
        if (key === UNCHECKABLE_KEY) throw new Error('the key database is down (adapter suite)');
        return key === KEY;
      },
      dataDir: dir,
      signingSecret: SECRET,
      allowPrivateUrls: true,
      avatars: { builtIn: false },
      limits: { ...options.instanceOptions?.limits, maxUploadBytes: UPLOAD_LIMIT },
      concurrency: { ...options.instanceOptions?.concurrency, v1RequestsPerKey: 1, maxQueuedRequestsPerKey: 0 },
      backends: { jobStore: new MemoryJobStore(), idempotencyStore: new MemoryIdempotencyStore(), blobStore: blobs, lipSync: false, separation: false, avatarRenderer: false },
    });
    const watch = watchProcess();
    let host: AdapterHost | undefined;
    try {
      const streams: Readable[] = [];
      const signals: (AbortSignal | undefined)[] = [];
      host = toHost(await options.mount(withSuitePaths(instance, streams, signals), { jsonBodyParser: settings.jsonBodyParser ?? false, fallback: hostFallback }));
      await instance.ready();
      const links = new LinkBuilder(new UrlSigner(Buffer.from(SECRET)), host.url, 3_600_000);
      await test({ url: host.url, blobs, links, suiteStreams: streams, suiteSignals: signals });
      // Whatever a test left running (a download cut off) has had its chance to fail loudly.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(watch.faults.map(String), [], 'the process saw an unhandled rejection or an uncaught exception');
    } finally {
      watch.stop();
      await host?.close();
      await instance.close();
      await rm(dir, { recursive: true, force: true });
    }
  };

  describe(`HTTP adapter contract: ${name}`, () => {
    for (const jsonBodyParser of [false, true]) {
      const parser = jsonBodyParser ? 'behind a JSON body parser' : 'without a body parser';
      it(`passes paths that are not its own on to the host (${parser})`, () =>
        withHost({ jsonBodyParser }, async ({ url }) => {
          assertFromHost(await call(`${url}/not-the-middleware`));
          assertFromHost(await call(`${url}/v2/avatarx`));
          assertFromHost(await call(`${url}/v3/anything?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }));
          // The middleware still answers its own paths after passing some on.
          assert.equal((await call(`${url}/v1/openapi.json`)).status, 200);
        }));

      it(`creates a job from a JSON body and answers its validation errors (${parser})`, () =>
        withHost({ jsonBodyParser }, async ({ url }) => {
          const uploaded = await upload(url, toneWav(0.5));
          assert.equal(uploaded.status, 201, uploaded.body.toString());
          const audioUri = jsonOf(uploaded).url as string;
          const post = (body: string) =>
            call(`${url}/v1/sourceSeparations`, { method: 'POST', headers: { key: KEY, 'content-type': 'application/json' }, body });
          const created = await post(JSON.stringify({ audioUri }));
          assert.equal(created.status, 201, created.body.toString());
          assert.equal(created.headers.get('x-content-type-options'), 'nosniff');
          const createdBody: unknown = jsonOf(created);
          assert.ok(Array.isArray(createdBody) && createdBody.length === 1, 'a creation answers a one-item array (SPEC)');
          const job = createdBody[0] as Record<string, unknown>;
          assert.equal(typeof job.uid, 'string');
          assert.equal(job.audioUri, audioUri);
          const fetched = await call(`${url}/v1/sourceSeparations/${String(job.uid)}`, { headers: { key: KEY } });
          assert.equal(fetched.status, 200, fetched.body.toString());
          assert.equal(jsonOf(fetched).uid, job.uid);
          const invalid = assertError(await post(JSON.stringify({ audioUri: 42 })), 400, 'validation_failed');
          assert.ok(Array.isArray(invalid.details), 'the field issues are listed');
          if (!jsonBodyParser) assertError(await post('{"audioUri": '), 400, 'invalid_json');
          assertFromHost(await call(`${url}/after-a-json-route`));
        }));

      it(`streams a multipart upload through whole, and refuses one over the limit with 413 (${parser})`, () =>
        withHost({ jsonBodyParser }, async ({ url, blobs }) => {
          const bytes = randomBytes(UPLOAD_LIMIT - 512 * 1024);
          const answer = await upload(url, bytes, 'large.bin', 'application/octet-stream');
          assert.equal(answer.status, 201, answer.body.toString());
          const view = jsonOf(answer);
          assert.equal(view.size, bytes.length);
          const stored = createHash('sha256');
          for await (const chunk of (await blobs.open(String(view.uid)))!) stored.update(chunk as Buffer);
          assert.equal(stored.digest('hex'), createHash('sha256').update(bytes).digest('hex'), 'the stored file differs from the sent one');
          const metadata = await call(`${url}/v1/uploads/${String(view.uid)}`, { headers: { key: KEY } });
          assert.equal(metadata.status, 200);
          assert.equal(jsonOf(metadata).size, bytes.length);
          assertError(await upload(url, randomBytes(UPLOAD_LIMIT + 1024 * 1024), 'huge.bin'), 413, 'too_large');
          assertError(
            await call(`${url}/v1/uploads`, { method: 'POST', headers: { key: KEY, 'content-type': 'text/plain' }, body: 'not multipart' }),
            400,
            'not_multipart',
          );
        }));
    }

    it('answers JSON with its status and nosniff', () =>
      withHost({}, async ({ url }) => {
        const openapi = await call(`${url}/v1/openapi.json`);
        assert.equal(openapi.status, 200);
        assert.equal(openapi.headers.get('x-content-type-options'), 'nosniff');
        assert.match(String(jsonOf(openapi).openapi), /^3\./);
        const avatars = await call(`${url}/v2/avatar`, { headers: { key: KEY } });
        assert.equal(avatars.status, 200);
        assert.equal(avatars.headers.get('x-content-type-options'), 'nosniff');
        assert.deepEqual(jsonOf(avatars), { page: 1, perPage: jsonOf(avatars).perPage, total: 0, nextPage: null, data: [] });
        const jobs = await call(`${url}/v2/2davatar?page=1&perPage=5`, { headers: { key: `Bearer ${KEY}` } });
        assert.equal(jobs.status, 200);
        assert.equal(jsonOf(jobs).perPage, 5, 'the query string reaches the core');
      }));

    it('answers errors as { error: { code, message } } with their status and headers (403, 404, 405 allow, 503 retry-after)', () =>
      withHost({}, async ({ url }) => {
        assertError(await call(`${url}/v2/avatar`), 403, 'forbidden');
        assertError(await call(`${url}/v2/avatar`, { headers: { key: 'wrong' } }), 403, 'forbidden');
        assertError(await call(`${url}/v2/avatar/00000000-0000-4000-8000-000000000000`, { headers: { key: KEY } }), 404, 'not_found');
        const wrongMethod = await call(`${url}/v1/openapi.json`, { method: 'DELETE' });
        assertError(wrongMethod, 405, 'method_not_allowed');
        assert.match(wrongMethod.headers.get('allow') ?? '', /\bGET\b/);
        const unchecked = await call(`${url}/v2/avatar`, { headers: { key: UNCHECKABLE_KEY } });
        assertError(unchecked, 503, 'unavailable');
        assert.match(unchecked.headers.get('retry-after') ?? '', /^\d+$/);
      }));

    it('answers 429 with retry-after while a slow upload holds the key’s /v1 slot, and serves again once it ends', () =>
      withHost({}, async ({ url }) => {
        // node:http rather than fetch: it sends the head and the first bytes at once, then holds the rest.
        const boundary = 'adapter-suite-boundary';
        const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
        const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
        const audio = toneWav(0.1);
        const req = httpRequest(`${url}/v1/uploads`, {
          method: 'POST',
          agent: false,
          headers: { key: KEY, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + audio.length + tail.length) },
        });
        const slow = new Promise<number>((resolve, reject) => {
          req.on('response', (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
        });
        req.flushHeaders();
        req.write(Buffer.concat([head, audio.subarray(0, 100)]));
        const finish = () => {
          if (!req.writableEnded) req.end(Buffer.concat([audio.subarray(100), tail]));
        };
        try {
          let refused: Answer | undefined;
          await eventually('a 429 while the upload holds the slot', async () => {
            const answer = await call(`${url}/v1/uploads/none-such`, { headers: { key: KEY } });
            if (answer.status === 429) refused = answer;
            else assertError(answer, 404, 'not_found');
            return refused !== undefined;
          });
          assertError(refused!, 429, 'too_many_requests');
          assert.match(refused!.headers.get('retry-after') ?? '', /^\d+$/);
        } finally {
          finish();
        }
        assert.equal(await slow, 201);
        assertError(await call(`${url}/v1/uploads/none-such`, { headers: { key: KEY } }), 404, 'not_found');
      }));

    it('serves signed file links: 200, 206 ranges, 416, HEAD, 403 on a bad signature', () =>
      withHost({}, async ({ url, blobs, links }) => {
        const content = randomBytes(256 * 1024);
        const blob = await blobs.put(Readable.from([content]), { contentType: 'video/mp4', owner: 'system' });
        const link = links.to(blob, 'clip.mp4');
        const whole = await call(link);
        assert.equal(whole.status, 200);
        assert.ok(whole.body.equals(content), 'the file differs from the stored one');
        assert.equal(whole.headers.get('content-type'), 'video/mp4');
        assert.equal(whole.headers.get('content-length'), String(content.length));
        assert.equal(whole.headers.get('accept-ranges'), 'bytes');
        assert.equal(whole.headers.get('x-content-type-options'), 'nosniff');
        assert.match(whole.headers.get('content-disposition') ?? '', /^inline; filename="?clip\.mp4/);
        const part = await call(link, { headers: { range: 'bytes=100-199' } });
        assert.equal(part.status, 206);
        assert.equal(part.headers.get('content-range'), `bytes 100-199/${content.length}`);
        assert.ok(part.body.equals(content.subarray(100, 200)));
        const suffix = await call(link, { headers: { range: 'bytes=-10' } });
        assert.equal(suffix.status, 206);
        assert.ok(suffix.body.equals(content.subarray(-10)));
        const outside = await call(link, { headers: { range: `bytes=${content.length}-` } });
        assertError(outside, 416, 'range_not_satisfiable');
        assert.equal(outside.headers.get('content-range'), `bytes */${content.length}`);
        const head = await call(link, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('content-length'), String(content.length));
        assert.equal(head.body.length, 0);
        const headRange = await call(link, { method: 'HEAD', headers: { range: 'bytes=0-9' } });
        assert.equal(headRange.status, 206);
        assert.equal(headRange.headers.get('content-length'), '10');
        assertError(await call(link.replace(/signature=[^&]+/, 'signature=AAAA')), 403, 'invalid_signature');
        await blobs.delete(blob.id);
        assertError(await call(link), 410, 'file_deleted');
      }));

    it('survives clients that leave mid-download, closes the file streams they left, and goes on serving', () =>
      withHost({}, async ({ url, blobs, links, suiteStreams }) => {
        const size = 48 * 1024 * 1024;
        const blob: BlobRef = await blobs.put(generated(size), { contentType: 'video/mp4', owner: 'system' });
        for (let i = 0; i < 3; i++) await leaveMidway(links.to(blob, 'long.mp4'), 64 * 1024);
        await leaveMidway(`${url}${ENDLESS_PATH}`, 256 * 1024);
        assert.equal(suiteStreams.length, 1);
        await eventually('the file stream of the client that left to be destroyed', async () => suiteStreams[0]!.destroyed);
        const small = await blobs.put(Readable.from([Buffer.from('still serving')]), { contentType: 'text/plain', owner: 'system' });
        await eventually('a complete answer after the aborted downloads', async () => (await call(links.to(small))).body.toString() === 'still serving');
        assert.equal((await call(`${url}/v1/openapi.json`)).status, 200);
      }));

    it('gives the core a request signal that aborts when the client leaves before the answer, not once the body is read', () =>
      withHost({}, async ({ url, suiteSignals }) => {
        const stayed = await call(`${url}${SIGNAL_PATH}?holdMs=300`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'a body, read before the answer' });
        assert.equal(stayed.status, 200);
        assert.deepEqual(jsonOf(stayed), { signal: true, aborted: false }, 'CoreRequest.signal is set (e.g. clientGoneSignal(res)) and the client stayed');
        const leaving = httpRequest(`${url}${SIGNAL_PATH}?holdMs=30000`, { method: 'POST', agent: false, headers: { 'content-type': 'text/plain' } });
        const left = new Promise((resolve) => leaving.on('error', resolve));
        leaving.end('a body');
        await eventually('the request to reach the instance', async () => suiteSignals.length === 2);
        leaving.destroy();
        await left;
        await eventually('the signal of the request whose client left to abort', async () => suiteSignals[1]?.aborted === true);
        assert.equal((await call(`${url}/v1/openapi.json`)).status, 200);
      }));

    it('survives an answer whose header cannot be written: a JSON 500 or a closed connection, the file stream closed', () =>
      withHost({}, async ({ url, suiteStreams }) => {
        for (const kind of ['json', 'stream']) {
          const answer = await call(`${url}${UNWRITABLE_PATH}?kind=${kind}`).catch((error: unknown) => error);
          if (!(answer instanceof Error)) {
            assertError(answer as Answer, 500, 'internal_error');
            assert.equal((answer as Answer).headers.get('x-adapter-suite-unwritable'), null);
          }
          assert.equal((await call(`${url}/v1/openapi.json`)).status, 200, 'the host no longer answers');
        }
        assert.equal(suiteStreams.length, 1);
        await eventually('the unsent file stream to be destroyed', async () => suiteStreams[0]!.destroyed);
      }));
  });
}

/** The host `mount` returned, as a URL and a close function. */
function toHost(mounted: Server | AdapterHost): AdapterHost {
  if (!('address' in mounted)) return mounted;
  const server = mounted;
  const address = server.address() as AddressInfo | string | null;
  assert.ok(address && typeof address === 'object', 'mount must return a listening http.Server (listen on a TCP port first)');
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostname === '0.0.0.0' || hostname === '[::]' ? '127.0.0.1' : hostname}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
