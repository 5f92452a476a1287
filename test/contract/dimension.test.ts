/**
 * Contract of `dimension` on POST /v2/2davatar (an extension): sizes out of range, odd or malformed
 * are refused with 400 `validation_failed` naming the field, and an accepted size reaches the
 * lip-sync engine as its output size. Runs once per host framework, with test-double engines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, waitForJob } from '../helpers/checks.js';
import { firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';

const h = useHarness();

/** Bodies' `dimension` that must be refused, and the field the details must name. */
const REFUSED: [string, unknown, string][] = [
  ['odd width', { width: 1279, height: 720 }, 'body.dimension.width'],
  ['odd height', { width: 1280, height: 721 }, 'body.dimension.height'],
  ['too small', { width: 254, height: 512 }, 'body.dimension.width'],
  ['too large', { width: 1920, height: 1922 }, 'body.dimension.height'],
  ['fractional', { width: 512.5, height: 512 }, 'body.dimension.width'],
  ['a string', { width: '1280', height: 720 }, 'body.dimension.width'],
  ['a side missing', { width: 1280 }, 'body.dimension.height'],
  ['an unknown key', { width: 1280, height: 720, depth: 2 }, 'body.dimension.depth'],
  ['not an object', '1280x720', 'body.dimension'],
];

for (const adapter of ADAPTERS) {
  describe(`dimension over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let avatarId: string;
    before(async () => {
      app = await makeApp(adapter);
      avatarId = await firstAvatarId(app, KEYS.a);
    });
    after(() => app.close());

    for (const [what, dimension, field] of REFUSED) {
      it(`refuses ${what} with 400 validation_failed naming ${field}`, async () => {
        const before = app.lipSync.inputs.length;
        const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.mp3'), avatarId, dimension });
        assertError(res, 400, 'validation_failed', [field]);
        assert.equal(app.lipSync.inputs.length, before, 'no job was rendered');
      });
    }

    for (const dimension of [
      { width: 1280, height: 720 },
      { width: 1080, height: 1920 },
      { width: 256, height: 1920 },
    ]) {
      it(`passes ${dimension.width}×${dimension.height} to the engine as its output size`, async () => {
        const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.mp3'), avatarId, dimension });
        assert.equal(res.status, 201, res.text);
        const job = await waitForJob(app, `/v2/2davatar/${res.body[0].uid}`, KEYS.a);
        assert.equal(job.status, 'completed');
        const input = app.lipSync.inputs.find((i) => i.outputSize?.width === dimension.width && i.outputSize.height === dimension.height);
        assert.ok(input, `the engine got ${JSON.stringify(app.lipSync.inputs.map((i) => i.outputSize))}`);
        assert.deepEqual(input.outputSize, dimension);
      });
    }

    it('passes no output size when the body has no dimension (the avatar’s own 512×512)', async () => {
      const before = app.lipSync.inputs.length;
      const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.mp3'), avatarId });
      assert.equal(res.status, 201, res.text);
      await waitForJob(app, `/v2/2davatar/${res.body[0].uid}`, KEYS.a);
      const input = app.lipSync.inputs[before];
      assert.ok(input);
      assert.equal(input.outputSize, undefined);
      assert.deepEqual([input.avatar.width, input.avatar.height], [512, 512]);
    });
  });
}
