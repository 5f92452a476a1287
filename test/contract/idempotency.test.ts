/**
 * Idempotency-Key on creations and uploads: repeats (also racing ones) replay the first answer, another body
 * answers 422, keys are scoped per API key, failed requests are not remembered, bad keys are a 400.
 * Runs once per host framework (the store itself: test/storage/idempotency-store.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';

const h = useHarness();

async function total(app: TestApp, path: string, key: string): Promise<number> {
  const res = await app.http.get(path).set('key', key);
  assert.equal(res.status, 200, res.text);
  return res.body.total as number;
}

for (const adapter of ADAPTERS) {
  describe(`Idempotency-Key over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let avatarId: string;
    before(async () => {
      app = await makeApp(adapter);
      avatarId = await firstAvatarId(app, KEYS.a);
    });
    after(() => app?.close());

    it('creates one job for five racing POSTs with one key, all answered the same; another body is a 422', async () => {
      const before = await total(app, '/v2/2davatar', KEYS.e);
      const key = `race-${randomUUID()}`;
      const body = { audioUrl: h.url('speech.wav'), avatarId };
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => app.http.post('/v2/2davatar').set('key', KEYS.e).set('Idempotency-Key', key).send(body)),
      );
      for (const res of answers) assert.equal(res.status, 201, res.text);
      assert.equal(new Set(answers.map((res) => JSON.stringify(res.body))).size, 1, 'every answer is the first one');
      assert.equal(answers.filter((res) => res.headers['idempotent-replayed'] === 'true').length, 4);
      assert.equal(await total(app, '/v2/2davatar', KEYS.e), before + 1);

      // The same body with keys in another order is the same request.
      const reordered = await app.http.post('/v2/2davatar').set('key', KEYS.e).set('Idempotency-Key', key).send({ avatarId, audioUrl: body.audioUrl });
      assert.deepEqual(reordered.body, answers[0]!.body);
      const other = await app.http.post('/v2/2davatar').set('key', KEYS.e).set('Idempotency-Key', key).send({ ...body, dangerousFlag: true });
      assertError(other, 422, 'idempotency_key_reused');
      const elsewhere = await app.http.post('/v1/sourceSeparations').set('key', KEYS.e).set('Idempotency-Key', key).send({ audioUri: h.url('speech.wav') });
      assertError(elsewhere, 422, 'idempotency_key_reused');
      assert.equal(await total(app, '/v2/2davatar', KEYS.e), before + 1);
    });

    it('scopes keys per API key and does not remember failures', async () => {
      const key = `scope-${randomUUID()}`;
      const first = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).set('Idempotency-Key', key).send({ audioUri: h.url('speech.wav') });
      const second = await app.http.post('/v1/sourceSeparations').set('key', KEYS.b).set('Idempotency-Key', key).send({ audioUri: h.url('speech.wav') });
      assert.equal(first.status, 201, first.text);
      assert.equal(second.status, 201, second.text);
      assert.notEqual(first.body[0].uid, second.body[0].uid);

      const retry = `retry-${randomUUID()}`;
      const bad = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).set('Idempotency-Key', retry).send({ audioUri: h.url('missing.wav') });
      assert.equal(bad.status, 400, bad.text);
      const fixed = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).set('Idempotency-Key', retry).send({ audioUri: h.url('speech.wav') });
      assert.equal(fixed.status, 201, fixed.text);
    });

    it('refuses a malformed key with 400', async () => {
      const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).set('Idempotency-Key', 'x'.repeat(256)).send({ audioUri: h.url('speech.wav') });
      assertError(res, 400, 'invalid_idempotency_key');
    });

    it('replays an upload of the same file and name; another file with the key is a 422', async () => {
      const key = `upload-${randomUUID()}`;
      const first = await app.http.post('/v1/uploads').set('key', KEYS.a).set('Idempotency-Key', key).attach('file', h.path('speech.wav'));
      const again = await app.http.post('/v1/uploads').set('key', KEYS.a).set('Idempotency-Key', key).attach('file', h.path('speech.wav'));
      assert.equal(first.status, 201, first.text);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      const other = await app.http.post('/v1/uploads').set('key', KEYS.a).set('Idempotency-Key', key).attach('file', h.path('speech.mp3'));
      assertError(other, 422, 'idempotency_key_reused');
    });
  });
}
