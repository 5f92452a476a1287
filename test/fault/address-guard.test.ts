/**
 * Fault injection: IPv6 spellings of forbidden IPv4 addresses (issue #10, item 10). Every IPv6 form that embeds an
 * IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo server and client, ISATAP) is judged by that
 * IPv4 address, as a literal in a URL and as the answer of a name lookup.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { after, before, describe, it } from 'node:test';
import { isForbiddenAddress, type HostResolver } from '../../src/core/input/address-guard.js';
import { InputError } from '../../src/core/input/errors.js';
import { safeFetch } from '../../src/core/input/safe-fetch.js';
import { startServer, type TestServer } from '../input/helpers/http-server.js';
import { TrackingBlobStore } from '../input/helpers/tracking-blob-store.js';

/** [address, why] pairs. */
const FORBIDDEN: readonly (readonly [string, string])[] = [
  ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated 127.0.0.1, dotted'],
  ['::FFFF:0:7F00:1', 'IPv4-translated 127.0.0.1, upper case'],
  ['0:0:0:0:ffff:0:a00:1', 'IPv4-translated 10.0.0.1, no ::'],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated 169.254.169.254 (cloud metadata)'],
  ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1'],
  ['::ffff:c0a8:101', 'IPv4-mapped 192.168.1.1'],
  ['::127.0.0.1', 'IPv4-compatible 127.0.0.1'],
  ['64:ff9b::7f00:1', 'NAT64 127.0.0.1'],
  ['64:ff9b::10.1.2.3', 'NAT64 10.1.2.3, dotted'],
  ['2002:7f00:1::', '6to4 127.0.0.1'],
  ['2002:7f00:0001:0000:0000:0000:0000:0001', '6to4 127.0.0.1, fully written'],
  ['2002:a00:1:1::5', '6to4 10.0.0.1'],
  ['2002:a9fe:a9fe::', '6to4 169.254.169.254'],
  ['2002:c0a8:101::1', '6to4 192.168.1.1'],
  ['2002:6440:1::', '6to4 100.64.0.1 (CGNAT)'],
  ['2001:0:7f00:1::', 'Teredo, server 127.0.0.1'],
  ['2001:0:a00:1:8000:63bf:f7f7:f7f7', 'Teredo, server 10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1 (inverted)'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo, client 10.0.0.1 (inverted)'],
  ['2001::4136:e378:8000:63bf:5601:5601', 'Teredo, client 169.254.169.254 (inverted)'],
  ['2606:4700::5efe:7f00:1', 'ISATAP interface id, 127.0.0.1'],
  ['2606:4700::200:5efe:a00:1', 'ISATAP interface id (global bit), 10.0.0.1'],
  ['fe80::1%eth0', 'zone index'],
  ['::ffff:127.0.0.01', 'not a literal Node accepts (a leading zero), though ipaddr.js parses it'],
  // Ranges that ipaddr.js classifies and the hand-written list before it lacked.
  ['192.88.99.1', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['2002:c058:6301::1', '6to4 192.88.99.1'],
  ['2001:2::1', 'IPv6 benchmarking (RFC 5180)'],
  ['2001:10::1', 'deprecated ORCHID (RFC 4843)'],
  ['3fff::1', 'IPv6 documentation (RFC 9637)'],
  ['5f00::1', 'segment routing SIDs (RFC 9602)'],
  // Forbidden outright besides ipaddr.js's names.
  ['::808:808', 'IPv4-compatible, even of a public address'],
  ['64:ff9b:1::808:808', 'local-use NAT64 (RFC 8215)'],
  ['fec0::1', 'deprecated site-local'],
  ['2001:db8::1', 'documentation'],
];

const ALLOWED: readonly (readonly [string, string])[] = [
  ['::ffff:0:808:808', 'IPv4-translated 8.8.8.8'],
  ['::ffff:8.8.8.8', 'IPv4-mapped 8.8.8.8'],
  ['64:ff9b::808:808', 'NAT64 8.8.8.8'],
  ['2002:808:808::1', '6to4 8.8.8.8'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, server 65.54.227.120, client 8.8.8.8'],
  ['2606:4700::5efe:808:808', 'ISATAP interface id, 8.8.8.8'],
  ['2606:4700:4700::1111', 'plain global unicast'],
  ['8.8.8.8', 'plain IPv4'],
  ['192.175.48.1', 'AS112 anycast (public)'],
];

describe('isForbiddenAddress: IPv6 forms embedding IPv4', () => {
  for (const [address, why] of FORBIDDEN) {
    it(`forbids ${address} (${why})`, () => assert.equal(isForbiddenAddress(address), true));
  }
  for (const [address, why] of ALLOWED) {
    it(`allows ${address} (${why})`, () => assert.equal(isForbiddenAddress(address), false));
  }
});

describe('safeFetch refuses embedded forbidden IPv4 before connecting', () => {
  let server: TestServer;
  let blobs: TrackingBlobStore;
  before(async () => {
    server = await startServer((_req, res) => res.end('media'));
    blobs = await TrackingBlobStore.create();
  });
  after(async () => {
    await server.close();
    await blobs.cleanup();
  });

  const meta = { owner: 'owner-a' };
  const refused = (error: unknown) => {
    assert.ok(error instanceof InputError, `expected InputError, got ${String(error)}`);
    assert.equal(error.code, 'forbidden_address', error.message);
    return true;
  };

  // As URLs spell them; the URL parser rewrites some (a dotted tail becomes hex), none may slip through.
  const literals = [
    'http://[::ffff:0:7f00:1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:7F00:0001::1]:8080/file',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
    'http://[2001:0:7f00:1::]/',
    'http://[64:ff9b::127.0.0.1]/',
  ];
  for (const url of literals) {
    it(`refuses ${url} with forbidden_address`, async () => {
      await assert.rejects(safeFetch(url, blobs, { maxBytes: 1000, meta, timeoutMs: 5000 }), refused);
    });
  }

  /** A resolver that answers `address` for every name. */
  const resolvesTo = (address: string, family: 4 | 6): HostResolver => (_host, _options, callback) =>
    callback(null, [{ address, family } satisfies LookupAddress]);

  it('uses the resolver it is given (a name resolving to 127.0.0.1 downloads when the policy allows it)', async () => {
    const url = `http://media.example:${server.port}/file`;
    const ref = await safeFetch(url, blobs, {
      maxBytes: 1000,
      meta,
      timeoutMs: 5000,
      isForbidden: () => false,
      resolveHost: resolvesTo('127.0.0.1', 4),
    });
    assert.equal(ref.size, 'media'.length);
  });

  for (const address of ['::ffff:0:7f00:1', '2002:7f00:1::', '2001:0:4136:e378:8000:63bf:80ff:fffe']) {
    it(`refuses a host name resolving to ${address}, without connecting`, async () => {
      const hits = server.hits.length;
      const url = `http://media.example:${server.port}/file`;
      await assert.rejects(
        safeFetch(url, blobs, { maxBytes: 1000, meta, timeoutMs: 5000, resolveHost: resolvesTo(address, 6) }),
        refused,
      );
      assert.equal(server.hits.length, hits, 'no request reached the server');
    });
  }
});
