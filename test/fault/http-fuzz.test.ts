/**
 * Property test of the HTTP edge (issue #10): random methods, paths (`/files/...`, `/v1/...`, `/v2/...`, random
 * segments and percent-encodings, real signed links with altered parts), query strings, headers and bodies (JSON-ish,
 * random bytes, over the size limit, chunked), against real Express and Koa servers. Properties:
 * - the process never sees an unhandled rejection or an uncaught exception, and every request gets an answer;
 * - every answer of the middleware has a documented status, `nosniff`, and, when it is an error, the JSON
 *   `{ error: { code, message, details? } }` shape; no input is the service's fault (no 500);
 * - a request the middleware does not serve reaches the host's next handler.
 * The run is reproducible: a fixed seed (`FUZZ_SEED` overrides it, `FUZZ_RUNS` the number of cases per adapter);
 * fast-check prints the seed and the shrunk counterexample on failure.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import fc from 'fast-check';
import Koa from 'koa';
import { virtualAnchor, virtualAnchorKoa } from '../../src/index.js';
import { LinkBuilder } from '../../src/core/links.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { ADAPTERS, KEYS, makeApp, type Adapter, type TestApp } from '../helpers/apps.js';
import { DOCUMENTED_STATUSES, RecordingLogger, assertJsonError, recordProcessFaults, type RawAnswer } from './http-faults.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_110);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
/** Raw-socket cases per adapter. */
const RAW_RUNS = Math.max(1, Math.round(RUNS / 10));
const SECRET = 'fuzz-test-signing-secret-0123456789';
const MAX_JSON = 2048;
/** Header of the host's own handler after the middleware: the request was not the middleware's. */
const FALLTHROUGH = 'x-host-fallthrough';

const faults = recordProcessFaults();

/** One generated request. */
interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Sent with Content-Length, or in these chunks with `Transfer-Encoding: chunked`. */
  body?: { bytes: Uint8Array; chunked: boolean };
}

// ---- arbitraries -------------------------------------------------------------------------------------------

const HEX = '0123456789ABCDEFabcdef';
const hexByte = fc.tuple(fc.constantFrom(...HEX), fc.constantFrom(...HEX)).map(([a, b]) => `%${a}${b}`);
/** A path segment as a client may send it: URL-safe characters, percent-encoded bytes (valid or not), UTF-8. */
const segment = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,12}$/) },
      { weight: 2, arbitrary: hexByte },
      { weight: 1, arbitrary: fc.constantFrom('%', '%Z', '%E0%A4%A', '%C0%AF', '%00', '%2F', '%2E%2E', '..', '.') },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }).map((s) => encodeURIComponent(s)) },
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => parts.join(''));

const PREFIXES = [
  '/files', '/v1', '/v2', '/v1/uploads', '/v1/sourceSeparations', '/v1/openapi.json', '/v2/avatar', '/v2/2davatar',
  '/V2/avatar', '/v2//avatar', '',
];
const randomPath = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 3 }), fc.boolean())
  .map(([prefix, segments, slash]) => `${prefix}/${segments.join('/')}${slash ? '/' : ''}`.replace(/^\/\//, '/'));

/** The middleware's own routes, with random ids. */
const ROUTES = ['/v2/avatar', '/v2/avatar/:x', '/v2/2davatar', '/v2/2davatar/:x', '/v1/sourceSeparations', '/v1/sourceSeparations/:x', '/v1/uploads', '/v1/uploads/:x', '/v1/openapi.json', '/files/:x', '/files/:x/:x'];
const routePath = fc
  .tuple(fc.constantFrom(...ROUTES), fc.array(segment, { minLength: 2, maxLength: 2 }), fc.boolean())
  .map(([route, [a, b], slash]) => route.replace(':x', a!).replace(':x', b!) + (slash ? '/' : ''));

const queryValue = fc.oneof(segment, fc.integer({ min: -5, max: 200 }).map(String), fc.constantFrom('', 'NaN', '1e3', '0x10', 'pending', 'ongoing'));
const queryString = fc
  .array(fc.tuple(fc.constantFrom('page', 'perPage', 'status', 'expires', 'signature', 'x', 'page[]', 'a%00'), queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** Header values Node's client can send: visible ASCII, space, tab and latin1 bytes, not starting or ending in blanks. */
const headerValue = fc
  .string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: 40 })
  .map((s) => s.trim());
const headerName = fc.stringMatching(/^[a-z0-9!#$%&'*+.^_`|~-]{1,16}$/);
const contentType = fc.constantFrom(
  'application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'text/plain', 'multipart/form-data',
  'multipart/form-data; boundary=XyZ', 'multipart/form-data; boundary=', 'application/x-www-form-urlencoded', '',
);
const headers = fc
  .record(
    {
      key: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(KEYS.a, `Bearer ${KEYS.a}`, KEYS.b) },
        { weight: 1, arbitrary: fc.constantFrom('bearer', '', 'Bearer  ') },
        { weight: 1, arbitrary: headerValue },
      ),
      'content-type': fc.oneof({ weight: 4, arbitrary: contentType }, { weight: 1, arbitrary: headerValue }),
      range: fc.oneof(fc.constantFrom('bytes=0-9', 'bytes=-5', 'bytes=5-', 'bytes=99999-', 'bytes=-0', 'bytes=1-0', 'bytes=0-1,3-4'), headerValue),
      accept: headerValue,
      'if-none-match': headerValue,
    },
    { requiredKeys: [] },
  )
  .chain((known) =>
    fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }).map((extra) => {
      const all: Record<string, string> = { ...known };
      for (const [name, value] of extra) {
        if (!['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'te', 'trailer'].includes(name)) all[name] = value;
      }
      return all;
    }),
  );

const MULTIPART_BODY = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="\u00e9 \ud83d\ude00 x.wav"\r\n\r\nRIFF\r\n--XyZ--\r\n';
const VALID_BODIES = [
  { avatarId: 'nope', audioUrl: 'http://127.0.0.1:1/a.wav' },
  { audioUri: 'http://169.254.169.254/latest' },
  { audioUrl: 'ftp://x/y', dangerousFlag: 'yes' },
].map((b) => JSON.stringify(b));
const bodyBytes = fc.oneof(
  fc.json({ maxDepth: 3 }).map((s) => Buffer.from(s)),
  fc.constantFrom(...VALID_BODIES).map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 512 }),
  fc.integer({ min: MAX_JSON + 1, max: 4 * MAX_JSON }).map((n) => Buffer.alloc(n, '{')),
  fc.constant(Buffer.from(MULTIPART_BODY, 'utf8')),
);
const body = fc.option(fc.record({ bytes: bodyBytes, chunked: fc.boolean() }), { nil: undefined });

const method = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND') },
);

/** A POST to a route that creates something, with a valid key: what reaches the body readers and parsers. */
const creation: fc.Arbitrary<FuzzRequest> = fc
  .tuple(fc.constantFrom('/v2/2davatar', '/v1/sourceSeparations', '/v1/uploads'), contentType, body, fc.boolean())
  .map(([path, type, payload, multipart]) => ({
    method: 'POST',
    path,
    headers: multipart ? { key: KEYS.c, 'content-type': 'multipart/form-data; boundary=XyZ' } : { key: KEYS.c, 'content-type': type },
    body: multipart ? { bytes: Buffer.from(MULTIPART_BODY, 'utf8'), chunked: payload?.chunked ?? false } : payload,
  }));

/** A request for any path. */
const anyRequest = (links: () => string[]): fc.Arbitrary<FuzzRequest> =>
  fc.oneof({ weight: 1, arbitrary: creation }, { weight: 4, arbitrary: anyPathRequest(links) });

const anyPathRequest = (links: () => string[]): fc.Arbitrary<FuzzRequest> =>
  fc.record({
    method,
    path: fc.oneof(
      { weight: 4, arbitrary: fc.tuple(routePath, queryString).map(([p, q]) => p + q) },
      { weight: 2, arbitrary: fc.tuple(randomPath, queryString).map(([p, q]) => p + q) },
      { weight: 3, arbitrary: alteredLink(links) },
    ),
    headers,
    body,
  });

/** A real signed link of the service, kept or with its name, id, expiry or signature altered. */
function alteredLink(links: () => string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(), fc.constantFrom('keep', 'name', 'add-name', 'id', 'expires', 'signature', 'drop-query'), segment).map(([i, how, seg]) => {
    const all = links();
    const link = all[i % all.length]!;
    const [path, query] = link.split('?') as [string, string];
    const parts = path.split('/');
    switch (how) {
      case 'keep':
        return link;
      case 'name':
        return `${[...parts.slice(0, -1), seg].join('/')}?${query}`;
      case 'add-name':
        return `${path}/${seg}?${query}`;
      case 'id':
        return `${path.replace(parts[2]!, seg)}?${query}`;
      case 'expires':
        return `${path}?${query.replace(/expires=\d+/, `expires=${seg}`)}`;
      case 'signature':
        return `${path}?${query.replace(/signature=[^&]+/, `signature=${seg}`)}`;
      default:
        return path;
    }
  });
}

// ---- hosts -------------------------------------------------------------------------------------------------

/** A host app around a test instance, with a last handler marking requests the middleware passed on. */
async function host(adapter: Adapter, app: TestApp, hostErrors: unknown[]): Promise<{ origin: string; close(): Promise<void> }> {
  let server: Server;
  if (adapter === 'express') {
    const hostApp = express();
    hostApp.use(virtualAnchor(app.instance));
    hostApp.use((_req, res) => {
      res.status(404).set(FALLTHROUGH, '1').send('host');
    });
    hostApp.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      hostErrors.push(error);
      res.status(599).end();
    });
    server = createServer(hostApp);
  } else {
    const hostApp = new Koa();
    // Koa reports a broken connection (a body its parser refused, a client gone) as an app error; those are the
    // client's doing, in any Koa app. Anything else would be the middleware's.
    hostApp.on('error', (error: Error & { code?: string }) => {
      const code = error.code ?? '';
      if (code !== 'ERR_STREAM_PREMATURE_CLOSE' && code !== 'ECONNRESET' && !code.startsWith('HPE_')) hostErrors.push(error);
    });
    hostApp.use(virtualAnchorKoa(app.instance));
    hostApp.use((ctx) => {
      ctx.status = 404;
      ctx.set(FALLTHROUGH, '1');
      ctx.body = 'host';
    });
    server = createServer(hostApp.callback());
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends a generated request on a keep-alive agent; rejects when no complete answer comes within 10 s. */
function exchange(origin: string, agent: Agent, req: FuzzRequest): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  const headersOut: Record<string, string> = { ...req.headers };
  if (req.body?.chunked) headersOut['transfer-encoding'] = 'chunked';
  else if (req.body) headersOut['content-length'] = String(req.body.bytes.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, path: req.path, method: req.method, headers: headersOut, agent });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error('no complete answer within 10 s'));
    }, 10_000);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    if (req.body?.chunked) {
      const bytes = Buffer.from(req.body.bytes);
      for (let at = 0; at < bytes.length; at += 97) outgoing.write(bytes.subarray(at, at + 97));
      outgoing.end();
    } else outgoing.end(req.body ? Buffer.from(req.body.bytes) : undefined);
  });
}

/** The properties every answer must have. */
function checkAnswer(req: FuzzRequest, answer: RawAnswer): void {
  const what = `${req.method} ${req.path} → ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`;
  if (answer.headers[FALLTHROUGH]) {
    assert.equal(answer.status, 404, what);
    return;
  }
  assert.ok(DOCUMENTED_STATUSES.has(answer.status), `undocumented status: ${what}`);
  assert.notEqual(answer.status, 500, `an input made the service fail: ${what}`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `no nosniff: ${what}`);
  if (answer.status < 400) return;
  if (req.method === 'HEAD') {
    assert.match(String(answer.headers['content-type']), /^application\/json/, what);
    return;
  }
  assertJsonError(answer);
}

for (const adapter of ADAPTERS) {
  describe(`HTTP edge fuzz over ${adapter}`, { timeout: 300_000 }, () => {
    let app: TestApp;
    let server: { origin: string; close(): Promise<void> };
    let storeDir: string;
    const logs = new RecordingLogger();
    const hostErrors: unknown[] = [];
    let links: string[] = [];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });

    before(async () => {
      storeDir = await mkdtemp(join(tmpdir(), `va-fuzz-${adapter}-`));
      const store = new FsBlobStore(storeDir);
      app = await makeApp(adapter, {
        signingSecret: SECRET,
        avatars: { builtIn: false },
        allowPrivateUrls: false,
        logger: logs,
        limits: { maxJsonBytes: MAX_JSON, maxUploadBytes: 4096, downloadTimeoutMs: 2000 },
        backends: { blobStore: store },
      });
      server = await host(adapter, app, hostErrors);
      const builder = new LinkBuilder(new UrlSigner(Buffer.from(SECRET)), '', 3_600_000);
      const blob = await store.put(Readable.from([randomBytes(3000)]), { contentType: 'audio/wav', owner: 'system' });
      links = [builder.to(blob, 'result.wav'), builder.to(blob), builder.to(blob, 'ü 😀 "x".wav')];
    });
    after(async () => {
      agent.destroy();
      await server.close();
      await app.close();
      await rm(storeDir, { recursive: true, force: true });
    });

    it(`answers ${RUNS} random requests as documented (seed ${SEED})`, async (t) => {
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(anyRequest(() => links), async (req) => {
          const answer = await exchange(server.origin, agent, req);
          const kind = answer.headers[FALLTHROUGH] ? 'host' : String(answer.status);
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
          checkAnswer(req, answer);
          faults.assertNone();
          assert.deepEqual(hostErrors.map(String), [], 'an error reached the host framework');
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true, includeErrorInReport: true },
      );
      t.diagnostic(`answers seen: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
      for (const kind of ['200', '201', '206', '400', '403', '404', '405', '413', '415', 'host']) {
        assert.ok(seen.has(kind), `the run never produced ${kind}: the generators no longer reach every part of the edge`);
      }
      assert.deepEqual(logs.problems(/request failed|answer failed|answer not sent/).map((l) => l.message), []);
    });

    it(`survives ${RAW_RUNS} raw, badly framed bodies sent on a socket (seed ${SEED})`, async () => {
      await fc.assert(
        fc.asyncProperty(rawBody, async (bytes) => {
          const answer = await rawExchange(server.origin, bytes);
          // Node's own parser may refuse bad framing (400, without nosniff): only the middleware's answers are checked.
          if (answer && answer.headers['x-content-type-options']) {
            checkAnswer({ method: 'POST', path: '/v2/2davatar', headers: {} }, answer);
          }
          faults.assertNone();
          assert.deepEqual(hostErrors.map(String), [], 'an error reached the host framework');
          const alive = await exchange(server.origin, agent, { method: 'GET', path: '/v1/openapi.json', headers: {} });
          assert.equal(alive.status, 200);
        }),
        { seed: SEED, numRuns: RAW_RUNS, endOnFailure: true, includeErrorInReport: true },
      );
    });
  });
}

/** A chunked JSON body whose framing may be broken: chunk-size lines of any kind, random bytes, early ends. */
const rawBody = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')])),
      fc.constantFrom('0\r\n\r\n', 'zz\r\n', 'ffffffffffff\r\n', '5;ext=1\r\nhello\r\n', '3\r\nabcdef\r\n', '\r\n', '0\r\nX-Trailer: 1\r\n\r\n').map((t) => Buffer.from(t)),
      fc.uint8Array({ maxLength: 32 }).map((b) => Buffer.from(b)),
    ),
    { maxLength: 6 },
  )
  .map((parts) => Buffer.concat(parts));

/**
 * Sends a chunked POST head and `body` on a raw socket, then ends its side. Resolves with the first answer the
 * server gave before closing, or `undefined` when it closed without one; rejects when it neither answers nor closes
 * within 10 s.
 */
function rawExchange(origin: string, body: Buffer): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server neither answered nor closed within 10 s'));
    }, 10_000);
    socket.on('data', (data: Buffer) => chunks.push(data));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks);
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return resolve(undefined);
      const [statusLine, ...lines] = text.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      const rest = text.subarray(headEnd + 4, headEnd + 4 + length);
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: rest, complete: rest.length === length });
    });
    socket.write(`POST /v2/2davatar HTTP/1.1\r\nHost: fuzz\r\nkey: ${KEYS.d}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    socket.end(body);
  });
}
