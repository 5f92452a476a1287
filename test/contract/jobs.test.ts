/**
 * Contract of the two job resources: POST/GET /v2/2davatar and /v1/sourceSeparations — creation, validation,
 * the pending → ongoing → completed/error life, result links (signature, Range), engines that fail or are
 * missing, and the job lists. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVirtualAnchor } from '../../src/index.js';
import { avatarUid } from '../../src/core/avatars/avatar-uid.js';
import { avatarVideoCreatedSchema, avatarVideoSchema } from '../../src/core/kinds/avatar-video/schemas.js';
import { separationCreatedSchema, separationSchema } from '../../src/core/kinds/separation/schemas.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, assertKeys, assertStamps, download, saveTo, UUID, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import { FakeLipSyncEngine, FakeSeparationEngine } from '../helpers/engines.js';
import { useHarness } from '../helpers/harness.js';
import { ffprobe } from '../helpers/media.js';
import { jobListContract } from './job-lists.js';

const h = useHarness();

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'va-contract-downloads-'));
});
after(() => rm(scratch, { recursive: true, force: true }));

const CREATED_VIDEO_KEYS = ['uid', 'status', 'createdAt', 'updatedAt'];
const VIDEO_KEYS = ['uid', 'status', 'path', 'createdAt', 'updatedAt'];
const CREATED_SEPARATION_KEYS = ['uid', 'audioUri', 'status', 'createdAt', 'updatedAt'];
const SEPARATION_KEYS = ['uid', 'audioUri', 'path', 'taskId', 'status', 'createdAt', 'updatedAt'];

for (const adapter of ADAPTERS) {
  describe(`job contract over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let avatarId: string;
    before(async () => {
      app = await makeApp(adapter);
      avatarId = await firstAvatarId(app, KEYS.a);
    });
    after(() => app.close());

    describe('POST /v2/2davatar', () => {
      /** A completed job of KEYS.a and its fetched record. */
      let done: { uid: string; path: string };

      it('creates a pending job (201, one-element array, exact fields) that goes ongoing, then completed', async () => {
        const startedBefore = app.lipSync.calls;
        const release = app.lipSync.hold();
        let uid: string;
        try {
          const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.mp3'), avatarId });
          assert.equal(res.status, 201, res.text);
          assert.match(String(res.headers['content-type']), /^application\/json/);
          assert.ok(Array.isArray(res.body) && res.body.length === 1, res.text);
          const [created] = res.body;
          assertKeys(created, CREATED_VIDEO_KEYS, 'creation response');
          avatarVideoCreatedSchema.strict().parse(created);
          assertStamps(created);
          assert.equal(created.status, 'pending');
          uid = created.uid;
          await app.lipSync.started(startedBefore + 1);
          const ongoing = await app.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.a);
          assert.equal(ongoing.status, 200);
          assertKeys(ongoing.body, [...VIDEO_KEYS, 'progress'], 'ongoing job');
          assert.deepEqual([ongoing.body.status, ongoing.body.path, ongoing.body.progress], ['ongoing', '', 0]);
          assert.equal(ongoing.body.createdAt, created.createdAt);
        } finally {
          release();
        }
        const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
        assertKeys(job, VIDEO_KEYS, 'completed job');
        avatarVideoSchema.strict().parse(job);
        assertStamps(job);
        assert.equal(job.status, 'completed');
        assert.ok(Date.parse(String(job.updatedAt)) >= Date.parse(String(job.createdAt)));
        assert.ok(String(job.path).startsWith(`${app.origin}/files/`), String(job.path));
        done = { uid, path: String(job.path) };
      });

      it('serves the result through its signed link without a key: an mp4 with video and audio', async () => {
        const file = await download(done.path);
        assert.equal(file.status, 200);
        assert.equal(file.headers.get('content-type'), 'video/mp4');
        assert.equal(file.headers.get('accept-ranges'), 'bytes');
        assert.equal(Number(file.headers.get('content-length')), file.body.length);
        const probe = await ffprobe(await saveTo(join(scratch, `${adapter}-${done.uid}.mp4`), file));
        assert.match(probe.format.format_name, /mp4/);
        assert.deepEqual(probe.streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
        assert.ok(Number(probe.format.duration) > 1, `duration ${probe.format.duration}`);
        // Each fetch hands out a fresh link that works too.
        const again = await app.http.get(`/v2/2davatar/${done.uid}`).set('key', KEYS.a);
        assert.equal((await download(again.body.path)).body.length, file.body.length);
      });

      it('answers Range requests with 206 and the exact bytes, 416 outside the file, HEAD without a body', async () => {
        const whole = (await download(done.path)).body;
        const size = whole.length;
        const part = await download(done.path, { range: 'bytes=0-99' });
        assert.equal(part.status, 206);
        assert.equal(part.headers.get('content-range'), `bytes 0-99/${size}`);
        assert.equal(part.headers.get('content-length'), '100');
        assert.deepEqual(part.body, whole.subarray(0, 100));
        const middle = await download(done.path, { range: `bytes=100-${size + 50}` });
        assert.equal(middle.status, 206);
        assert.equal(middle.headers.get('content-range'), `bytes 100-${size - 1}/${size}`);
        assert.deepEqual(middle.body, whole.subarray(100));
        const suffix = await download(done.path, { range: 'bytes=-10' });
        assert.equal(suffix.status, 206);
        assert.equal(suffix.headers.get('content-range'), `bytes ${size - 10}-${size - 1}/${size}`);
        assert.deepEqual(suffix.body, whole.subarray(size - 10));
        const outside = await download(done.path, { range: `bytes=${size}-` });
        assert.equal(outside.status, 416);
        assert.equal(outside.headers.get('content-range'), `bytes */${size}`);
        const head = await fetch(done.path, { method: 'HEAD' });
        assert.equal(head.status, 200);
        assert.equal(head.headers.get('content-length'), String(size));
        assert.equal((await head.arrayBuffer()).byteLength, 0);
      });

      it('answers 403 to a link whose signature, expiry or file id was tampered with', async () => {
        const url = new URL(done.path);
        const signature = url.searchParams.get('signature')!;
        const variants = [
          (u: URL) => u.searchParams.set('signature', `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`),
          (u: URL) => u.searchParams.delete('signature'),
          (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 1000)),
          (u: URL) => (u.pathname = u.pathname.replace(/\/files\/[^/]+/, '/files/AAAAAAAAAAAAAAAAAAAAAA')),
        ];
        for (const change of variants) {
          const link = new URL(url);
          change(link);
          const res = await fetch(link);
          assert.equal(res.status, 403, `${link}: ${res.status}`);
          assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_signature');
        }
      });

      it('answers 415 to a body that is not JSON and 400 to malformed or empty JSON', async () => {
        const text = await app.http.post('/v2/2davatar').set('key', KEYS.c).set('content-type', 'text/plain').send('audioUrl=x');
        assertError(text, 415, 'unsupported_media_type');
        const form = await app.http.post('/v2/2davatar').set('key', KEYS.c).type('form').send({ audioUrl: h.url('speech.mp3'), avatarId });
        assertError(form, 415, 'unsupported_media_type');
        const malformed = await app.http.post('/v2/2davatar').set('key', KEYS.c).set('content-type', 'application/json').send('{"audioUrl": ');
        assertError(malformed, 400, 'invalid_json');
        const empty = await app.http.post('/v2/2davatar').set('key', KEYS.c).set('content-type', 'application/json').send('');
        assertError(empty, 400, 'invalid_json');
      });

      it('answers 400 with field details for missing, malformed or unknown fields and an unknown avatar', async () => {
        const post = (body: unknown) => app.http.post('/v2/2davatar').set('key', KEYS.c).send(body as object);
        assertError(await post({ avatarId }), 400, 'validation_failed', ['body.audioUrl']);
        assertError(await post({ audioUrl: h.url('speech.mp3') }), 400, 'validation_failed', ['body.avatarId']);
        assertError(await post({}), 400, 'validation_failed', ['body.audioUrl', 'body.avatarId']);
        assertError(await post([]), 400, 'validation_failed');
        assertError(await post({ audioUrl: 'not a url', avatarId }), 400, 'validation_failed', ['body.audioUrl']);
        assertError(await post({ audioUrl: 'ftp://127.0.0.1/a.wav', avatarId }), 400, 'validation_failed', ['body.audioUrl']);
        assertError(await post({ audioUrl: h.url('speech.mp3'), avatarId, dangerousFlag: 'yes' }), 400, 'validation_failed', ['body.dangerousFlag']);
        assertError(await post({ audioUrl: h.url('speech.mp3'), avatarId, voice: 'x' }), 400, 'validation_failed', ['body.voice']);
        assertError(await post({ audioUrl: h.url('speech.mp3'), avatarId: '00000000-0000-4000-8000-000000000000' }), 400, 'unknown_avatar', ['body.avatarId']);
      });

      it('answers 400 for audio over 5 minutes, a non-audio file and an unreachable URL, keeping no job or file', async () => {
        const blobs = await readdir(join(app.dataDir, 'blobs'));
        const post = (audioUrl: string) => app.http.post('/v2/2davatar').set('key', KEYS.c).send({ audioUrl, avatarId });
        // long.wav lasts 6 minutes: decoding stops a little past the limit, and the message quotes the limit and its option.
        const long = await post(h.url('long.wav'));
        assertError(long, 400, 'too_long', ['body.audioUrl']);
        assert.equal(long.body.error.message, 'the audio lasts more than 300 s (5 min) when decoded; at most 300 s (5 min) is accepted (limits.maxAvatarAudioSec)');
        assertError(await post(h.url('image.png')), 400, 'not_audio', ['body.audioUrl']);
        assertError(await post(h.url('note.txt')), 400, 'not_audio', ['body.audioUrl']);
        assertError(await post(h.url('missing.wav')), 400, 'unreachable', ['body.audioUrl']);
        assertError(await post('http://127.0.0.1:1/speech.wav'), 400, 'unreachable', ['body.audioUrl']);
        const list = await app.http.get('/v2/2davatar').set('key', KEYS.c);
        assert.equal(list.body.total, 0);
        assert.deepEqual((await readdir(join(app.dataDir, 'blobs'))).sort(), blobs.sort());
      });

      it('passes a backgroundUrl image to the engine; a non-image background is 400 not_image', async () => {
        const runs = app.lipSync.inputs.length;
        const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId, backgroundUrl: h.url('image.png') });
        assert.equal((await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a)).status, 'completed');
        const input = app.lipSync.inputs[runs]!;
        assert.ok(input.backgroundPath, 'the engine got no background');
        assert.equal(avatarUid(input.avatar.id), avatarId, 'the engine got the requested avatar');
        for (const name of ['speech.mp3', 'note.txt', 'clip.mp4'] as const) {
          const res = await app.http.post('/v2/2davatar').set('key', KEYS.c).send({ audioUrl: h.url('speech.mp3'), avatarId, backgroundUrl: h.url(name) });
          assertError(res, 400, 'not_image', ['body.backgroundUrl']);
        }
        assert.equal((await app.http.get('/v2/2davatar').set('key', KEYS.c)).body.total, 0);
      });

      it('moves a dangerousFlag job to error (dangerous_flag) after the delay, without running the engine', async () => {
        const calls = app.lipSync.calls;
        const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: h.url('speech.mp3'), avatarId, dangerousFlag: true });
        assert.equal(res.status, 201, res.text);
        assertKeys(res.body[0], CREATED_VIDEO_KEYS, 'creation response');
        assert.equal(res.body[0].status, 'pending');
        const uid = res.body[0].uid;
        const early = await app.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.a);
        assert.ok(['pending', 'ongoing'].includes(early.body.status), `status ${early.body.status} right after creation`);
        const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
        assert.equal(job.status, 'error');
        assertKeys(job, [...VIDEO_KEYS, 'errorReason'], 'failed job');
        avatarVideoSchema.strict().parse(job);
        assertKeys(job.errorReason, ['code', 'message'], 'errorReason');
        assert.equal((job.errorReason as { code: string }).code, 'dangerous_flag');
        assert.equal(job.path, '');
        const elapsed = Date.parse(String(job.updatedAt)) - Date.parse(String(job.createdAt));
        assert.ok(elapsed >= 290, `error after ${elapsed} ms, configured 300`);
        assert.equal(app.lipSync.calls, calls);
      });

      it('defaults to the limits of the spec: dangerousFlag 10 s, 5 min audio, 24 h retention, 1 /v1 request per key', async () => {
        const dataDir = await mkdtemp(join(tmpdir(), 'va-contract-defaults-'));
        const instance = createVirtualAnchor({ apiKeys: [KEYS.a], dataDir, logger: false, avatars: { builtIn: false }, backends: { avatarRenderer: false } });
        try {
          assert.equal(instance.options.dangerousFlagDelayMs, 10_000);
          assert.equal(instance.options.limits.maxAvatarAudioSec, 300);
          assert.equal(instance.options.retention.resultsMs, 24 * 3_600_000);
          assert.equal(instance.options.retention.uploadsMs, 24 * 3_600_000);
          assert.equal(instance.options.concurrency.v1RequestsPerKey, 1);
          await instance.ready();
        } finally {
          await instance.close();
          await rm(dataDir, { recursive: true, force: true });
        }
      });
    });

    describe('POST /v1/sourceSeparations', () => {
      it('creates a pending job echoing audioUri; single fetch adds taskId; completion gives two downloadable links', async () => {
        const audioUri = h.url('speech.wav');
        const startedBefore = app.separation.calls;
        const release = app.separation.hold();
        let uid: string;
        try {
          const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).send({ audioUri });
          assert.equal(res.status, 201, res.text);
          assert.ok(Array.isArray(res.body) && res.body.length === 1, res.text);
          const [created] = res.body;
          assertKeys(created, CREATED_SEPARATION_KEYS, 'creation response');
          separationCreatedSchema.strict().parse(created);
          assertStamps(created);
          assert.deepEqual([created.status, created.audioUri], ['pending', audioUri]);
          uid = created.uid;
          await app.separation.started(startedBefore + 1);
          const ongoing = await app.http.get(`/v1/sourceSeparations/${uid}`).set('key', KEYS.a);
          assertKeys(ongoing.body, [...SEPARATION_KEYS, 'progress'], 'ongoing separation');
          assert.deepEqual([ongoing.body.status, ongoing.body.progress], ['ongoing', 0]);
          assert.deepEqual(ongoing.body.path, { speech: '', ambience: '' });
        } finally {
          release();
        }
        const job = await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.a);
        assertKeys(job, SEPARATION_KEYS, 'completed separation');
        separationSchema.strict().parse(job);
        assertStamps(job);
        assert.equal(job.status, 'completed');
        assert.equal(job.audioUri, audioUri);
        assert.match(String(job.taskId), UUID);
        assert.notEqual(job.taskId, job.uid);
        const again = await app.http.get(`/v1/sourceSeparations/${uid}`).set('key', KEYS.a);
        assert.equal(again.body.taskId, job.taskId);
        const path = job.path as { speech: string; ambience: string };
        assertKeys(path, ['speech', 'ambience'], 'path');
        for (const [stem, link] of Object.entries(path)) {
          assert.ok(link.startsWith(`${app.origin}/files/`), link);
          const file = await download(link);
          assert.equal(file.status, 200, `${stem}: ${file.status}`);
          assert.equal(file.headers.get('content-type'), 'audio/wav');
          const probe = await ffprobe(await saveTo(join(scratch, `${adapter}-${uid}-${stem}.wav`), file));
          assert.equal(probe.streams[0]?.codec_type, 'audio');
        }
        assert.notEqual(new URL(path.speech).pathname, new URL(path.ambience).pathname);
      });

      it('accepts mp3, wav, mp4 and mov decided by content (an mp4 named .mov is fine)', async () => {
        const uids = [];
        for (const name of ['speech.mp3', 'tone-80k.wav', 'clip.mp4', 'clip.mov', 'mp4-named.mov'] as const) {
          uids.push(await createSeparation(app, KEYS.b, h.url(name)));
        }
        for (const uid of uids) {
          const job = await waitForJob(app, `/v1/sourceSeparations/${uid}`, KEYS.b);
          assert.equal(job.status, 'completed', JSON.stringify(job));
        }
      });

      it('answers 400 unsupported_format for other containers and not_audio for non-audio files', async () => {
        const post = (audioUri: string) => app.http.post('/v1/sourceSeparations').set('key', KEYS.c).send({ audioUri });
        assertError(await post(h.url('tone.flac')), 400, 'unsupported_format', ['body.audioUri']);
        assertError(await post(h.url('tone.ogg')), 400, 'unsupported_format', ['body.audioUri']);
        assertError(await post(h.url('image.png')), 400, 'not_audio', ['body.audioUri']);
        assertError(await post(h.url('note.txt')), 400, 'not_audio', ['body.audioUri']);
        assertError(await post('http://127.0.0.1:1/a.wav'), 400, 'unreachable', ['body.audioUri']);
      });

      it('answers 415/400 for a non-JSON body, a missing or malformed audioUri and unknown fields', async () => {
        const post = () => app.http.post('/v1/sourceSeparations').set('key', KEYS.c);
        assertError(await post().set('content-type', 'text/plain').send('x'), 415, 'unsupported_media_type');
        assertError(await post().set('content-type', 'application/json').send('{'), 400, 'invalid_json');
        assertError(await post().send({}), 400, 'validation_failed', ['body.audioUri']);
        assertError(await post().send({ audioUri: 42 }), 400, 'validation_failed', ['body.audioUri']);
        assertError(await post().send({ audioUri: h.url('speech.wav'), audioUrl: h.url('speech.wav') }), 400, 'validation_failed', ['body.audioUrl']);
        assert.equal((await app.http.get('/v1/sourceSeparations').set('key', KEYS.c)).body.total, 0);
      });
    });

    describe('engines', () => {
      it('a failing engine ends the job in error with errorReason; a missing engine with engine_missing', async () => {
        const failing = await makeApp(adapter, {
          backends: {
            lipSync: new FakeLipSyncEngine({ failWith: 'lip-sync double failed on purpose' }),
            separation: new FakeSeparationEngine({ failWith: 'separation double failed on purpose' }),
          },
        });
        const missing = await makeApp(adapter, { backends: { lipSync: false, separation: false } });
        try {
          for (const [target, code, message] of [
            [failing, 'processing_failed', /double failed on purpose/],
            [missing, 'engine_missing', /.+/],
          ] as const) {
            const video = await createVideo(target, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
            const separation = await createSeparation(target, KEYS.a, h.url('speech.mp3'));
            for (const path of [`/v2/2davatar/${video}`, `/v1/sourceSeparations/${separation}`]) {
              const job = await waitForJob(target, path, KEYS.a);
              assert.equal(job.status, 'error', `${path}: ${JSON.stringify(job)}`);
              const reason = job.errorReason as { code: string; message: string };
              assertKeys(reason, ['code', 'message'], 'errorReason');
              assert.equal(reason.code, code);
              assert.match(reason.message, message);
            }
          }
        } finally {
          await Promise.all([failing.close(), missing.close()]);
        }
      });
    });

    jobListContract(h, () => app, KEYS.d);
  });
}
