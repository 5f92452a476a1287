/**
 * Contract of photo avatars (POST /v2/avatar, DELETE /v2/avatar/{uid}, and the key's avatars in GET /v2/avatar and
 * POST /v2/2davatar), on Express and Koa, with test doubles for the face detector and the photo renderer: creation
 * (multipart and imageUrl), pending → completed, the refusals (not_image, no_face, face_too_small, 413, bad name),
 * a failed preparation, isolation between keys, delete, built-in avatars, and a video job with a photo avatar.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, after, describe, it } from 'node:test';
import { avatarListItemSchema, avatarSchema } from '../../src/core/schemas/avatar.js';
import { MAX_LANDMARK_SPREAD, MIN_FACE_HEIGHT_PX, photoDefinition } from '../../src/domain/avatar/photo.js';
import { PHOTO_AVATAR_FPS } from '../../src/domain/avatar/photo-avatar.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, assertKeys, assertStamps, download, waitForAvatar, waitForJob } from '../helpers/checks.js';
import { createVideo, upload } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { FakeFaceDetector, FakePhotoRenderer, makePortraits, type PortraitName } from '../helpers/photo-doubles.js';

const h = useHarness();
const MAX_PHOTO_BYTES = 64 * 1024;
const AVATAR_KEYS = ['uid', 'name', 'path', 'previewImagePath', 'thumbnailPath', 'createdAt', 'updatedAt', 'thumbnailGenerationStatus'];

let portraits: (name: PortraitName) => string;
let big: string;
/** Writes the portraits once, into the harness's fixture folder: its file server makes them reachable as imageUrl too. */
let made: Promise<void> | undefined;
const makeFiles = () =>
  (made ??= (async () => {
    await makePortraits(h.fixtures.dir);
    portraits = (name) => join(h.fixtures.dir, name);
    big = join(h.fixtures.dir, 'big.png');
    await writeFile(big, randomBytes(MAX_PHOTO_BYTES + 4096));
  })());

for (const adapter of ADAPTERS) {
  describe(`photo avatar contract over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let renderer: FakePhotoRenderer;
    let builtIn: string[];
    before(async () => {
      await makeFiles();
      const detector = new FakeFaceDetector();
      renderer = new FakePhotoRenderer();
      app = await makeApp(adapter, { backends: { faceDetector: detector, photoRenderer: renderer }, limits: { maxPhotoBytes: MAX_PHOTO_BYTES } });
      const list = await app.http.get('/v2/avatar').set('key', KEYS.a);
      builtIn = (list.body.data as { uid: string }[]).map((a) => a.uid);
    });
    after(() => app.close());

    const createFrom = (key: string, name: PortraitName | 'note.txt', fields: Record<string, string> = {}) => {
      let req = app.http.post('/v2/avatar').set('key', key);
      for (const [field, value] of Object.entries(fields)) req = req.field(field, value);
      return req.attach('file', name === 'note.txt' ? h.path('note.txt') : portraits(name));
    };
    const prepared = (key: string, uid: string) => waitForAvatar(app, key, uid);

    /** A completed photo avatar of KEYS.a. */
    let mine: { uid: string; path: string };

    it('creates a pending avatar from a multipart portrait (201, the AvatarListItem fields), then completes it with links; the largest face is animated', async () => {
      const release = renderer.hold();
      let uid: string;
      try {
        const res = await createFrom(KEYS.a, 'portrait.png', { name: 'Ada' });
        assert.equal(res.status, 201, res.text);
        assertKeys(res.body, AVATAR_KEYS, 'created avatar');
        avatarListItemSchema.strict().parse(res.body);
        assertStamps(res.body);
        assert.deepEqual([res.body.name, res.body.thumbnailGenerationStatus, res.body.path, res.body.thumbnailPath], ['Ada', 'pending', '', '']);
        uid = res.body.uid;
        const pending = await app.http.get(`/v2/avatar/${uid}`).set('key', KEYS.a);
        assert.equal(pending.body.thumbnailGenerationStatus, 'pending');
      } finally {
        release();
      }
      const done = await prepared(KEYS.a, uid);
      assertKeys(done, AVATAR_KEYS, 'prepared avatar');
      avatarSchema.strict().parse(done);
      assert.equal(done.thumbnailGenerationStatus, 'completed');
      for (const link of [done.path, done.previewImagePath, done.thumbnailPath]) {
        assert.ok(String(link).startsWith(`${app.origin}/files/`), String(link));
        assert.equal((await download(String(link))).status, 200);
      }
      assert.equal((await download(String(done.path))).headers.get('content-type'), 'video/mp4');
      // Two faces, 120 and 240 px high: the 240 px one (box at y = 150) is what the renderer got.
      assert.equal(renderer.faces.at(-1)!.landmarks.box.y, 150);
      mine = { uid, path: String(done.path) };
    });

    it('creates one from a JSON imageUrl, with the same rules as job inputs', async () => {
      const res = await app.http.post('/v2/avatar').set('key', KEYS.a).send({ imageUrl: h.files.url('portrait.png'), name: '  Grace  ' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, 'Grace');
      assert.equal((await prepared(KEYS.a, res.body.uid)).thumbnailGenerationStatus, 'completed');
      assertError(await app.http.post('/v2/avatar').set('key', KEYS.a).send({ imageUrl: 'ftp://example.com/a.png' }), 400, 'validation_failed', ['body.imageUrl']);
      assertError(await app.http.post('/v2/avatar').set('key', KEYS.a).send({ imageUrl: h.files.url('note.txt') }), 400, 'not_image', ['body.imageUrl']);
    });

    it('refuses what is not a JPEG, PNG or WebP image (not_image), a photo without a face (no_face) and a face under the minimum (face_too_small)', async () => {
      const before = (await app.http.get('/v2/avatar').set('key', KEYS.a)).body.total;
      assertError(await createFrom(KEYS.a, 'note.txt'), 400, 'not_image', ['body.file']);
      assertError(await createFrom(KEYS.a, 'landscape.png'), 400, 'no_face', ['body.file']);
      const small = await createFrom(KEYS.a, 'far.png');
      assertError(small, 400, 'face_too_small', ['body.file']);
      assert.equal(
        small.body.error.message,
        `the face is 48×60 px (brows to chin) in the photo, too small to animate; send a photo where the face is at least ${MIN_FACE_HEIGHT_PX} px high, e.g. a closer crop or a larger photo`,
      );
      const unsure = await createFrom(KEYS.a, 'far-unsure.png');
      assertError(unsure, 400, 'face_too_small', ['body.file']);
      assert.match(unsure.body.error.message, /they lie 9 % of the eye distance apart; at most 6 % is accepted\); send a photo where the face is at least 96 px high/);
      assert.equal((await app.http.get('/v2/avatar').set('key', KEYS.a)).body.total, before, 'a refused photo leaves no avatar');
    });

    it(`accepts a face under ${MIN_FACE_HEIGHT_PX} px whose landmarks are sure (landmarkSpread at most ${MAX_LANDMARK_SPREAD})`, async () => {
      const res = await createFrom(KEYS.a, 'far-sure.png');
      assert.equal(res.status, 201, res.text);
      assert.equal((await prepared(KEYS.a, res.body.uid)).thumbnailGenerationStatus, 'completed');
    });

    it('honours Idempotency-Key: a repeat (multipart or JSON) replays the first avatar, another photo or name with the key is 422, and another key is its own', async () => {
      const idem = `photo-${randomBytes(6).toString('hex')}`;
      const total = async () => (await app.http.get('/v2/avatar').set('key', KEYS.a)).body.total as number;
      const before = await total();
      const first = await createFrom(KEYS.a, 'portrait.png', { name: 'Once' }).set('idempotency-key', idem);
      assert.equal(first.status, 201, first.text);
      const again = await createFrom(KEYS.a, 'portrait.png', { name: 'Once' }).set('idempotency-key', idem);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.uid, first.body.uid, 'the repeat answers the first avatar');
      assertError(await createFrom(KEYS.a, 'portrait.png', { name: 'Twice' }).set('idempotency-key', idem), 422, 'idempotency_key_reused');
      assertError(await createFrom(KEYS.a, 'far.png', { name: 'Once' }).set('idempotency-key', idem), 422, 'idempotency_key_reused');
      const other = await createFrom(KEYS.b, 'portrait.png', { name: 'Once' }).set('idempotency-key', idem);
      assert.equal(other.status, 201, other.text);
      assert.notEqual(other.body.uid, first.body.uid, 'keys are not shared between API keys');
      assert.equal(await total(), before + 1, 'one avatar for the key, whatever the repeats');

      const jsonIdem = `${idem}-json`;
      const body = { imageUrl: h.files.url('portrait.png'), name: 'By link' };
      const byLink = await app.http.post('/v2/avatar').set('key', KEYS.a).set('idempotency-key', jsonIdem).send(body);
      assert.equal(byLink.status, 201, byLink.text);
      const repeat = await app.http.post('/v2/avatar').set('key', KEYS.a).set('idempotency-key', jsonIdem).send(body);
      assert.equal(repeat.headers['idempotent-replayed'], 'true');
      assert.equal(repeat.body.uid, byLink.body.uid);
      assert.equal(await total(), before + 2);
      // A refused request does not hold its key: the same key then works for a good one.
      const refusedKey = `${idem}-refused`;
      assertError(await createFrom(KEYS.a, 'landscape.png').set('idempotency-key', refusedKey), 400, 'no_face', ['body.file']);
      assert.equal((await createFrom(KEYS.a, 'portrait.png').set('idempotency-key', refusedKey)).status, 201);
      for (const [key, uid] of [[KEYS.a, first.body.uid], [KEYS.b, other.body.uid], [KEYS.a, byLink.body.uid]] as const) await prepared(key, uid);
      // Key b had no photo avatar before this test; later tests count on that.
      assert.equal((await app.http.delete(`/v2/avatar/${other.body.uid}`).set('key', KEYS.b)).status, 204);
    });

    it('answers 413 over limits.maxPhotoBytes, and 400 for a bad name', async () => {
      const res = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', big);
      assertError(res, 413, 'too_large');
      // A file of POST /v2/avatar is received up to the clip's limit (a portrait or a clip is told by its content), so
      // a portrait's size is known when it is refused.
      assert.equal(res.body.error.message, 'the file is 68 KiB; at most 64 KiB is accepted (limits.maxPhotoBytes)');
      assertError(await createFrom(KEYS.a, 'portrait.png', { name: 'x'.repeat(101) }), 400, 'validation_failed', ['body.name']);
    });

    it('ends a preparation that fails in error, with errorReason, and then refuses the avatar for videos', async () => {
      renderer.failWith = 'the renderer broke';
      let uid: string;
      try {
        const res = await createFrom(KEYS.a, 'portrait.png');
        assert.equal(res.status, 201, res.text);
        uid = res.body.uid;
        const failed = await prepared(KEYS.a, uid);
        assert.equal(failed.thumbnailGenerationStatus, 'error');
        assert.equal((failed.errorReason as { code: string }).code, 'processing_failed');
        assert.match((failed.errorReason as { message: string }).message, /the renderer broke/);
      } finally {
        renderer.failWith = undefined;
      }
      assertError(await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId: uid }), 400, 'unknown_avatar');
    });

    it('makes a video with a photo avatar: the engine gets the photo and its landmarks', async () => {
      const calls = app.lipSync.inputs.length;
      const job = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId: mine.uid });
      assert.equal((await waitForJob(app, `/v2/2davatar/${job}`, KEYS.a)).status, 'completed');
      const input = app.lipSync.inputs.slice(calls).at(-1)!;
      assert.ok(input.photo, 'the engine got no photo');
      assert.equal(input.photo.landmarks.box.y, 150);
      // The video draws the photo as its idle clip does: one definition for both, from the face (its id seeds the motion).
      assert.deepEqual(input.avatar, photoDefinition(input.photo, PHOTO_AVATAR_FPS));
      assert.deepEqual([input.avatar.width, input.avatar.height, input.avatar.fps], [512, 512, 25]);
    });

    it('keeps an avatar to its key: listed after the built-in ones for it, 404 and unknown_avatar for every other key', async () => {
      const mineList = await app.http.get('/v2/avatar').set('key', KEYS.a).query({ perPage: 100 });
      assert.equal(mineList.status, 200);
      const uids = (mineList.body.data as { uid: string }[]).map((a) => a.uid);
      assert.deepEqual(uids.slice(0, builtIn.length), builtIn);
      assert.ok(uids.includes(mine.uid));
      assert.equal(mineList.body.total, uids.length);
      // Pages run on from the catalogue into the key's avatars.
      const second = await app.http.get('/v2/avatar').set('key', KEYS.a).query({ page: 2, perPage: builtIn.length });
      assert.deepEqual((second.body.data as { uid: string }[]).map((a) => a.uid), uids.slice(builtIn.length, 2 * builtIn.length));

      const other = await app.http.get('/v2/avatar').set('key', KEYS.b).query({ perPage: 100 });
      assert.deepEqual((other.body.data as { uid: string }[]).map((a) => a.uid), builtIn);
      assert.equal(other.body.total, builtIn.length);
      assertError(await app.http.get(`/v2/avatar/${mine.uid}`).set('key', KEYS.b), 404, 'not_found');
      assertError(await app.http.delete(`/v2/avatar/${mine.uid}`).set('key', KEYS.b), 404, 'not_found');
      assertError(await app.http.post('/v2/2davatar').set('key', KEYS.b).send({ audioUrl: h.url('speech.wav'), avatarId: mine.uid }), 400, 'unknown_avatar');
      assert.equal((await app.http.get(`/v2/avatar/${mine.uid}`).set('key', KEYS.a)).status, 200);
    });

    it('refuses to delete a built-in avatar (403)', async () => {
      assertError(await app.http.delete(`/v2/avatar/${builtIn[0]}`).set('key', KEYS.a), 403, 'built_in_avatar');
      assert.equal((await app.http.get(`/v2/avatar/${builtIn[0]}`).set('key', KEYS.a)).status, 200);
    });

    it('deletes an avatar (204) with its files, then answers 404; videos made with it stay', async () => {
      const job = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId: mine.uid });
      const video = await waitForJob(app, `/v2/2davatar/${job}`, KEYS.a);
      const res = await app.http.delete(`/v2/avatar/${mine.uid}`).set('key', KEYS.a);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.text, '');
      assertError(await app.http.get(`/v2/avatar/${mine.uid}`).set('key', KEYS.a), 404, 'not_found');
      assertError(await app.http.delete(`/v2/avatar/${mine.uid}`).set('key', KEYS.a), 404, 'not_found');
      const list = await app.http.get('/v2/avatar').set('key', KEYS.a).query({ perPage: 100 });
      assert.ok(!(list.body.data as { uid: string }[]).some((a) => a.uid === mine.uid));
      assert.notEqual((await download(mine.path)).status, 200, 'the idle clip is gone');
      assertError(await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.wav'), avatarId: mine.uid }), 400, 'unknown_avatar');
      assert.equal((await download(String(video.path))).status, 200, 'the video made with it stays');
    });

    it('deletes a pending avatar: its preparation stops and nothing it made is kept', async () => {
      const release = renderer.hold();
      try {
        const res = await createFrom(KEYS.c, 'portrait.png');
        assert.equal(res.status, 201, res.text);
        assert.equal((await app.http.delete(`/v2/avatar/${res.body.uid}`).set('key', KEYS.c)).status, 204);
        assertError(await app.http.get(`/v2/avatar/${res.body.uid}`).set('key', KEYS.c), 404, 'not_found');
      } finally {
        release();
      }
    });

    it('creates from an upload URL of the same key (the avatar keeps its own copy)', async () => {
      const uploaded = await upload(app, KEYS.a, portraits('portrait.png'));
      const res = await app.http.post('/v2/avatar').set('key', KEYS.a).send({ imageUrl: uploaded.url });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, 'Photo avatar');
      assert.equal((await prepared(KEYS.a, res.body.uid)).thumbnailGenerationStatus, 'completed');
      assertError(await app.http.post('/v2/avatar').set('key', KEYS.b).send({ imageUrl: uploaded.url }), 400, 'not_found');
    });
  });
}
