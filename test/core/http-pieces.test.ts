import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Router, type Route } from '../../src/core/http/router.js';
import { parseRange } from '../../src/core/api/file-routes.js';
import { makeKeyListAuthenticator, ownerOf, readKey } from '../../src/core/auth.js';
import { TRANSITIONS, isFinal, sourcesOf } from '../../src/domain/state-machine.js';
import { envelope } from '../../src/core/api/deps.js';
import { json } from '../../src/core/http/types.js';
import { toErrorResponse } from '../../src/core/http/error-response.js';
import { ClientGoneError } from '../../src/core/http/client-gone.js';

const route = (method: Route['method'], pattern: string): Route => ({
  method,
  pattern,
  access: 'key',
  family: 'v2',
  doc: { summary: pattern, tag: 'test', responses: {}, errors: [] },
  handle: async () => json(200, {}),
});

describe('Router', () => {
  const router = new Router([route('GET', '/v2/avatar'), route('GET', '/v2/avatar/:uid'), route('POST', '/v2/2davatar')]);

  it('matches static and parameter paths, with or without a trailing slash', () => {
    assert.equal(router.match('GET', '/v2/avatar').kind, 'match');
    assert.equal(router.match('GET', '/v2/avatar/').kind, 'match');
    const m = router.match('GET', '/v2/avatar/abc%20d');
    assert.ok(m.kind === 'match');
    assert.deepEqual(m.params, { uid: 'abc d' });
  });

  it('answers HEAD with the GET route, and tells a wrong method from an unknown path', () => {
    assert.equal(router.match('HEAD', '/v2/avatar').kind, 'match');
    assert.deepEqual(router.match('GET', '/v2/2davatar'), { kind: 'method_not_allowed', allowed: ['POST'] });
    assert.deepEqual(router.match('GET', '/v3/other'), { kind: 'none' });
    assert.deepEqual(router.match('GET', '/v2/avatar/a/b'), { kind: 'none' });
  });
});

describe('parseRange', () => {
  it('parses start-end, open end and suffix ranges', () => {
    assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
    assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=-10', 100), { start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=50-500', 100), { start: 50, end: 99 });
  });
  it('rejects ranges outside the file and ignores malformed ones', () => {
    assert.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
    assert.equal(parseRange('bytes=9-3', 100), 'unsatisfiable');
    assert.equal(parseRange('bytes=-0', 100), 'unsatisfiable');
    assert.equal(parseRange('items=0-1', 100), undefined);
    assert.equal(parseRange('items=5-1', 100), undefined);
    assert.equal(parseRange(undefined, 100), undefined);
    assert.equal(parseRange('bytes=-5', 0), 'unsatisfiable');
  });
  it('serves a suffix longer than the file whole (RFC 9110 §14.1.2), which range-parser 1.x refuses', () => {
    assert.deepEqual(parseRange('bytes=-500', 100), { start: 0, end: 99 });
    assert.deepEqual(parseRange('bytes=-100', 100), { start: 0, end: 99 });
  });
  it('ignores several ranges, even when only one of them is inside the file', () => {
    assert.equal(parseRange('bytes=0-1,5-9', 100), undefined);
    assert.equal(parseRange('bytes=0-1,200-300', 100), undefined);
    assert.equal(parseRange('bytes=200-300,400-500', 100), undefined);
  });
});

describe('auth', () => {
  it('reads bare and Bearer keys, and nothing from an empty header', () => {
    assert.equal(readKey({ key: 'k1' }), 'k1');
    assert.equal(readKey({ key: 'Bearer k1' }), 'k1');
    assert.equal(readKey({ key: 'bearer   k1 ' }), 'k1');
    assert.equal(readKey({ key: '  ' }), undefined);
    assert.equal(readKey({}), undefined);
  });
  it('accepts exactly the configured keys', () => {
    const check = makeKeyListAuthenticator(['k1', 'k2']);
    assert.equal(check('k1'), true);
    assert.equal(check('k2'), true);
    assert.equal(check('k3'), false);
    assert.equal(check('k1 '), false);
  });
  it('derives a stable owner id that does not contain the key', () => {
    assert.equal(ownerOf('secret-key'), ownerOf('secret-key'));
    assert.notEqual(ownerOf('a'), ownerOf('b'));
    assert.ok(!ownerOf('secret-key').includes('secret'));
  });
});

describe('state machine', () => {
  it('allows exactly pending→ongoing→completed, ongoing→ongoing (a later attempt takes a job over) and any non-final state → error', () => {
    assert.deepEqual(TRANSITIONS.pending, ['ongoing', 'error']);
    assert.deepEqual(TRANSITIONS.ongoing, ['ongoing', 'completed', 'error']);
    assert.deepEqual(sourcesOf('error').sort(), ['ongoing', 'pending']);
    assert.deepEqual(sourcesOf('completed'), ['ongoing']);
    assert.equal(isFinal('completed') && isFinal('error') && !isFinal('pending') && !isFinal('ongoing'), true);
  });
});

describe('envelope', () => {
  it('computes nextPage from page, perPage and total', () => {
    assert.equal(envelope(1, 2, 5, []).nextPage, 2);
    assert.equal(envelope(3, 2, 5, []).nextPage, null);
    assert.equal(envelope(1, 20, 0, []).nextPage, null);
    assert.equal(envelope(2, 2, 4, []).nextPage, null);
  });
});

describe('toErrorResponse', () => {
  /** A logger that keeps what it was told, by level. */
  const recording = () => {
    const said: string[] = [];
    const at = (level: string) => (message: string) => void said.push(`${level}: ${message}`);
    return { said, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
  };

  it('answers a request whose client has gone 499 client_gone, logged at debug level only', () => {
    const { said, logger } = recording();
    const controller = new AbortController();
    controller.abort(new ClientGoneError());
    const response = toErrorResponse(controller.signal.reason, logger, { method: 'POST', path: '/v2/2davatar', signal: controller.signal });
    assert.equal(response.status, 499);
    assert.ok(response.kind === 'json');
    assert.equal((response.body as { error: { code: string } }).error.code, 'client_gone');
    assert.deepEqual(said, ['debug: request dropped: the client has gone']);
  });

  it('still answers an unknown error of a request whose client stayed 500, logged as an error', () => {
    const { said, logger } = recording();
    const response = toErrorResponse(new Error('broken'), logger, { method: 'POST', path: '/v2/2davatar', signal: new AbortController().signal });
    assert.equal(response.status, 500);
    assert.deepEqual(said, ['error: request failed']);
  });
});
