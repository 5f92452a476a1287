/**
 * Deeply nested JSON bodies: 5000 levels of `[[[…]]]` or `{"a":{"a":…}}` fit well inside the 64 KiB body limit.
 * Every JSON creation route refuses them with 400 `validation_failed` (never a 500: nothing recursive walks them),
 * on Express and Koa, with and without a host JSON body parser in front. `canonicalJson` (the idempotency
 * fingerprint) takes any depth too.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH } from '../../src/index.js';
import { canonicalJson } from '../../src/core/idempotency/canonical-json.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { FakeFaceDetector, FakePhotoRenderer } from '../helpers/photo-doubles.js';
import { recordProcessFaults } from './http-faults.js';

const process$ = recordProcessFaults();

/** The routes that take a JSON body (POST /v2/avatar also takes multipart; its JSON form is the one here). */
const JSON_ROUTES = ['/v2/2davatar', '/v1/sourceSeparations', '/v2/avatar'];

/** `levels` arrays, one inside the other. */
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** `levels` objects, one inside the other, each under the key `a`. */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

const DEPTH_MESSAGE = `arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels`;

for (const adapter of ADAPTERS) {
  for (const jsonBodyParser of [false, true]) {
    describe(`deeply nested JSON over ${adapter} ${jsonBodyParser ? 'behind a JSON body parser' : 'without a body parser'}`, { timeout: SUITE_TIMEOUT_MS }, () => {
      let app: TestApp;
      before(async () => {
        app = await makeApp(adapter, { jsonBodyParser, backends: { faceDetector: new FakeFaceDetector(), photoRenderer: new FakePhotoRenderer() } });
      });
      after(() => app.close());
      afterEach(() => process$.assertNone());

      const post = (path: string, body: string, headers: Record<string, string> = {}) =>
        app.http.post(path).set('key', KEYS.a).set(headers).set('content-type', 'application/json').send(body);

      for (const path of JSON_ROUTES) {
        it(`POST ${path}: a 5000-level array and a 5000-level object are 400 validation_failed`, async () => {
          for (const [shape, body] of [
            ['array', deepArray(5000)],
            ['object', deepObject(5000)],
          ] as const) {
            // With an Idempotency-Key too: the body's fingerprint is taken before validation.
            for (const headers of [{}, { 'idempotency-key': `deep-${shape}-${path}` }] as Record<string, string>[]) {
              const res = await post(path, body, headers);
              assertError(res, 400, 'validation_failed', ['body']);
              assert.deepEqual(res.body.error.details, [{ field: 'body', message: DEPTH_MESSAGE }], `${shape}: ${res.text}`);
            }
          }
        });
      }

      it(`refuses from level ${MAX_JSON_DEPTH + 1} on; a body at the limit goes on to its schema`, async () => {
        for (const shape of [deepArray, deepObject]) {
          const over = await post('/v2/2davatar', shape(MAX_JSON_DEPTH + 1));
          assert.deepEqual(over.body.error?.details, [{ field: 'body', message: DEPTH_MESSAGE }], over.text);
          const at = await post('/v2/2davatar', shape(MAX_JSON_DEPTH));
          assertError(at, 400, 'validation_failed');
          assert.ok(!at.text.includes(DEPTH_MESSAGE), at.text);
        }
        // The service still answers ordinary requests.
        assert.equal((await app.http.get('/v2/2davatar').set('key', KEYS.a)).status, 200);
      });
    });
  }
}

describe('canonicalJson', () => {
  it('sorts keys at every level, drops undefined fields and writes undefined items as null', () => {
    const value = { b: [1, 'x', null, undefined, { d: true, c: { f: 1.5, e: [] } }], a: { z: undefined, y: '"' } };
    assert.equal(canonicalJson(value), '{"a":{"y":"\\""},"b":[1,"x",null,null,{"c":{"e":[],"f":1.5},"d":true}]}');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson({}), '{}');
    assert.equal(canonicalJson('text'), '"text"');
    assert.equal(canonicalJson(undefined), 'null');
  });

  it('writes values nested 100 000 levels deep without running out of stack', () => {
    const levels = 100_000;
    assert.equal(canonicalJson(JSON.parse(deepArray(levels))), deepArray(levels));
    assert.equal(canonicalJson(JSON.parse(deepObject(levels))), deepObject(levels));
  });
});
