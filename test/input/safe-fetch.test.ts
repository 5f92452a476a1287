import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { after, afterEach, before, describe, it } from 'node:test';
import { isForbiddenAddress } from '../../src/core/input/address-guard.js';
import { InputError } from '../../src/core/input/errors.js';
import { safeFetch, type SafeFetchOptions } from '../../src/core/input/safe-fetch.js';
import { startServer, type TestServer } from './helpers/http-server.js';
import { TrackingBlobStore } from './helpers/tracking-blob-store.js';

const BODY = 'hello media';

let server: TestServer;
let blobs: TrackingBlobStore;

before(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hop = Number(url.searchParams.get('hop') ?? '0');
    switch (url.pathname) {
      case '/file':
        res.writeHead(200, { 'content-type': 'audio/mpeg; charset=binary', 'content-length': BODY.length });
        return res.end(BODY);
      case '/big-declared':
        res.writeHead(200, { 'content-length': 5000 });
        return res.end('x'.repeat(5000));
      case '/big-chunked': // no Content-Length: only counting can catch it
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write('x'.repeat(500));
        return res.end();
      case '/chain': // redirects `n` times (relative Location), then serves the file
        res.writeHead(hop < Number(url.searchParams.get('n')) ? 302 : 200, {
          location: `/chain?n=${url.searchParams.get('n')}&hop=${hop + 1}`,
        });
        return res.end(hop < Number(url.searchParams.get('n')) ? '' : BODY);
      case '/to':
        res.writeHead(307, { location: url.searchParams.get('target') ?? '/' });
        return res.end();
      case '/stall-headers':
        return; // never answers
      case '/stall-body':
        res.writeHead(200, { 'content-length': 1000 });
        return res.write('partial');
      default:
        res.writeHead(404);
        return res.end('nope');
    }
  });
  blobs = await TrackingBlobStore.create();
});
after(async () => {
  await server.close();
  await blobs.cleanup();
});
afterEach(async () => {
  assert.deepEqual(
    (await blobs.entriesOnDisk()).filter((e) => e.startsWith('tmp/put-')),
    [],
    'no partial download left in the store',
  );
});

const meta = { owner: 'owner-a' };
const open: SafeFetchOptions = { maxBytes: 1000, meta, allowPrivateAddresses: true, timeoutMs: 2000 };

function inputError(code: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof InputError, `expected InputError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

describe('isForbiddenAddress', () => {
  const forbidden = [
    '127.0.0.1', '127.8.9.10', '0.0.0.0', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '100.64.0.1',
    '169.254.169.254', '224.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'fd00::1', 'fc00::1', 'ff02::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:10.0.0.1', '64:ff9b::a00:1', 'not-an-ip',
  ];
  const allowed = ['8.8.8.8', '172.32.0.1', '100.128.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const address of forbidden) it(`forbids ${address}`, () => assert.equal(isForbiddenAddress(address), true));
  for (const address of allowed) it(`allows ${address}`, () => assert.equal(isForbiddenAddress(address), false));
});

describe('safeFetch', () => {
  it('refuses a loopback URL by default, without connecting', async () => {
    const before = server.hits.length;
    await assert.rejects(safeFetch(`${server.origin}/file`, blobs, { maxBytes: 1000, meta }), inputError('forbidden_address'));
    assert.equal(server.hits.length, before);
  });

  it('refuses a host name that resolves to loopback (checked in the lookup)', async () => {
    const before = server.hits.length;
    const url = `http://localhost:${server.port}/file`;
    await assert.rejects(safeFetch(url, blobs, { maxBytes: 1000, meta }), inputError('forbidden_address'));
    assert.equal(server.hits.length, before);
  });

  it('refuses IPv6 and IPv4-mapped literals of loopback', async () => {
    for (const host of ['[::1]', '[::ffff:127.0.0.1]']) {
      await assert.rejects(safeFetch(`http://${host}:${server.port}/file`, blobs, { maxBytes: 1000, meta }), inputError('forbidden_address'));
    }
  });

  it('downloads with allowPrivateAddresses, keeping the media type', async () => {
    const ref = await safeFetch(`${server.origin}/file`, blobs, open);
    assert.equal(ref.size, BODY.length);
    assert.equal(ref.contentType, 'audio/mpeg');
    const stream = await blobs.open(ref.id);
    assert.ok(stream);
    assert.equal(await text(stream), BODY);
    assert.equal((await blobs.stat(ref.id))?.meta.owner, 'owner-a');
  });

  it('rejects a declared Content-Length over the cap, giving the declared size, the limit and its option', async () => {
    await assert.rejects(safeFetch(`${server.origin}/big-declared`, blobs, { ...open, maxBytesOption: 'limits.maxDownloadBytes' }), (e: unknown) => {
      inputError('too_large')(e);
      assert.equal((e as InputError).message, 'the file is 4.9 KiB (5000 bytes); at most 1000 bytes is accepted (limits.maxDownloadBytes)');
      return true;
    });
  });

  it('rejects a body over the cap by counting bytes, leaving no blob', async () => {
    const count = blobs.created.length;
    await assert.rejects(safeFetch(`${server.origin}/big-chunked`, blobs, open), (e: unknown) => {
      inputError('too_large')(e);
      assert.equal((e as InputError).httpStatus, 413);
      assert.equal((e as InputError).message, 'the file is larger than 1000 bytes; at most 1000 bytes is accepted');
      return true;
    });
    assert.equal(blobs.created.length, count);
  });

  it('follows up to 5 redirects and refuses the 6th', async () => {
    const ref = await safeFetch(`${server.origin}/chain?n=5`, blobs, open);
    assert.equal(ref.size, BODY.length);
    await assert.rejects(safeFetch(`${server.origin}/chain?n=6`, blobs, open), inputError('unreachable'));
  });

  it('checks every redirect hop against the address policy', async () => {
    // 127.0.0.1 passes this policy, 127.0.0.2 (also loopback on Linux, reaches the same server) does not.
    const policy = { maxBytes: 1000, meta, isForbidden: (ip: string) => ip !== '127.0.0.1' };
    const direct = await safeFetch(`${server.origin}/file`, blobs, policy);
    assert.equal(direct.size, BODY.length);
    const before = server.hits.length;
    const url = `${server.origin}/to?target=${encodeURIComponent(`http://127.0.0.2:${server.port}/file`)}`;
    await assert.rejects(safeFetch(url, blobs, policy), inputError('forbidden_address'));
    assert.equal(server.hits.length, before + 1, 'only the first hop reached the server');
  });

  it('refuses a redirect to a private address under the default policy', async () => {
    // The first hop must be allowed for the redirect to matter, so open exactly 127.0.0.1 and keep the rest default.
    const policy = { maxBytes: 1000, meta, isForbidden: (ip: string) => ip !== '127.0.0.1' && isForbiddenAddress(ip) };
    for (const target of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://[::ffff:192.168.0.1]/']) {
      const url = `${server.origin}/to?target=${encodeURIComponent(target)}`;
      await assert.rejects(safeFetch(url, blobs, policy), inputError('forbidden_address'));
    }
  });

  it('refuses non-http schemes, also behind a redirect', async () => {
    await assert.rejects(safeFetch('ftp://example.com/a.mp3', blobs, open), inputError('bad_url'));
    await assert.rejects(safeFetch('file:///etc/passwd', blobs, open), inputError('bad_url'));
    await assert.rejects(safeFetch('not a url', blobs, open), inputError('bad_url'));
    const url = `${server.origin}/to?target=${encodeURIComponent('file:///etc/passwd')}`;
    await assert.rejects(safeFetch(url, blobs, open), inputError('bad_url'));
  });

  it('times out when the server does not answer, or stops mid-body', async () => {
    const fast = { ...open, timeoutMs: 150 };
    await assert.rejects(safeFetch(`${server.origin}/stall-headers`, blobs, fast), inputError('timeout'));
    await assert.rejects(safeFetch(`${server.origin}/stall-body`, blobs, fast), inputError('timeout'));
  });

  it('reports a non-2xx answer as unreachable', async () => {
    await assert.rejects(safeFetch(`${server.origin}/missing`, blobs, open), (e: unknown) => {
      inputError('unreachable')(e);
      assert.match((e as Error).message, /404/);
      return true;
    });
  });

  it('reports a refused connection as unreachable', async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    await assert.rejects(safeFetch(`${closed.origin}/file`, blobs, open), inputError('unreachable'));
  });
});
