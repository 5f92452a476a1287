/**
 * Fault injection: media files that lie about their duration (issue #10, item 4). Durations are what the audio
 * decodes to: creation refuses audio longer than its limit (400 `too_long`) whatever its header says, a job's
 * duration is the decoded one, and the media helpers engines use cannot read or mux more than a given duration.
 * Default limits: 300 s of avatar audio, 1200 s of separation input.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { decodeAudio } from '../../src/inference/media/decode.js';
import { encodeVideo } from '../../src/inference/media/encode-video.js';
import { measureAudioDuration } from '../../src/inference/media/measure-duration.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, download, saveTo, waitForJob } from '../helpers/checks.js';
import { createVideo, firstAvatarId } from '../helpers/client.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES, ffprobe } from '../helpers/media.js';
import { LYING_FILES, makeLyingMedia } from './helpers/lying-media.js';

useHarness();

let dir: string;
let files: FileServer;
let binaries: MediaBinaries;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-fault-durations-'));
  await makeLyingMedia(dir);
  files = await startFileServer(dir);
  binaries = await resolveMediaBinaries(BINARIES);
});
after(async () => {
  await files?.close();
  await rm(dir, { recursive: true, force: true });
});

const path = (name: string) => join(dir, name);

describe('the lying files (what the test relies on)', () => {
  it('their headers claim 3 s, 3 s, 10 min, 20 s and 9 s', async () => {
    const claimed = async (name: string) => Number((await ffprobe(path(name))).format.duration);
    assert.ok(Math.abs((await claimed(LYING_FILES.mkv)) - 3) < 0.01);
    assert.ok(Math.abs((await claimed(LYING_FILES.mp4)) - 3) < 0.01);
    assert.ok(Math.abs((await claimed(LYING_FILES.m4a)) - 600) < 0.01);
    assert.ok((await claimed(LYING_FILES.mp3)) > 19);
    assert.ok((await claimed(LYING_FILES.squashed)) < 10);
  });

  it('they decode to 15 min (more than 400 s), 15 min, 30 min (more than 1000 s), 0.3 s and 15 min', async () => {
    const decoded = async (name: string, maxSec?: number) => measureAudioDuration(path(name), binaries, { maxSec });
    // Within one decoded frame: ffmpeg 6.1 and later report where the last packet starts.
    assert.ok((await decoded(LYING_FILES.mkv, 400)) > 399.8);
    assert.ok(Math.abs((await decoded(LYING_FILES.mp4)) - 900) < 1);
    assert.ok((await decoded(LYING_FILES.m4a, 1000)) > 999.8);
    const mp3 = await decoded(LYING_FILES.mp3);
    assert.ok(mp3 > 0.2 && mp3 < 0.4, `mp3 decodes to ${mp3} s`);
    assert.ok((await decoded(LYING_FILES.squashed, 400)) > 399.8, 'samples are counted, not timestamps');
  });
});

describe('media helpers cap what they read', () => {
  it('decodeAudio stops at maxDurationSec of decoded samples, whatever the timestamps say', async () => {
    const pcm = await buffer(decodeAudio(path(LYING_FILES.squashed), { sampleRate: 8000, channels: 1, maxDurationSec: 3 }, binaries));
    assert.equal(pcm.length, 3 * 8000 * 4, 'exactly 3 s of mono f32le at 8 kHz');
  });

  it('the video encoder muxes at most audioMaxSec of sound, whatever the timestamps say', async () => {
    const out = path('capped.mp4');
    const frame = new Uint8Array(16 * 16 * 4).fill(128);
    const frames = Array.from({ length: 30 }, () => frame.slice());
    await encodeVideo(frames, { width: 16, height: 16, fps: 10, outputPath: out, audioPath: path(LYING_FILES.squashed), audioMaxSec: 3 }, binaries);
    const probe = await ffprobe(out);
    const audio = probe.streams.find((s) => s.codec_type === 'audio') as { duration?: string } | undefined;
    assert.ok(audio, 'the video has sound');
    assert.ok(Number(audio.duration) <= 3.1, `audio track of ${audio.duration} s`);
    assert.ok(Number(probe.format.duration) <= 3.2, `video of ${probe.format.duration} s`);
  });

  it('the video encoder keeps audioMaxSec of sound when timestamps stretch it', async () => {
    const out = path('stretched.mp4');
    const frames = Array.from({ length: 30 }, () => new Uint8Array(16 * 16 * 4).fill(128));
    await encodeVideo(frames, { width: 16, height: 16, fps: 10, outputPath: out, audioPath: path(LYING_FILES.stretched), audioMaxSec: 3 }, binaries);
    const audio = (await ffprobe(out)).streams.find((s) => s.codec_type === 'audio') as { duration?: string } | undefined;
    assert.ok(audio && Math.abs(Number(audio.duration) - 3) < 0.1, `audio track of ${audio?.duration} s`);
  });
});

for (const adapter of ADAPTERS) {
  describe(`lying durations over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let avatarId: string;
    before(async () => {
      app = await makeApp(adapter);
      avatarId = await firstAvatarId(app, KEYS.a);
    });
    after(() => app.close());

    for (const file of [LYING_FILES.mkv, LYING_FILES.mp4, LYING_FILES.squashed]) {
      it(`refuses ${file} as avatar audio: 400 too_long, no job`, async () => {
        const jobs = async () => Number((await app.http.get('/v2/2davatar').set('key', KEYS.a)).body.total);
        const before = await jobs();
        const res = await app.http.post('/v2/2davatar').set('key', KEYS.a).send({ audioUrl: files.url(file), avatarId });
        assertError(res, 400, 'too_long', ['body.audioUrl']);
        assert.equal(await jobs(), before, 'no job created');
      });
    }

    it(`refuses ${LYING_FILES.m4a} for separation (limit 20 min): 400 too_long`, async () => {
      const calls = app.separation.calls;
      const res = await app.http.post('/v1/sourceSeparations').set('key', KEYS.a).send({ audioUri: files.url(LYING_FILES.m4a) });
      assertError(res, 400, 'too_long', ['body.audioUri']);
      assert.equal(res.body.error.message, 'the audio lasts more than 1200 s (20 min) when decoded; at most 1200 s (20 min) is accepted (limits.maxSeparationSec)');
      assert.equal(app.separation.calls, calls, 'no engine run');
    });

    it(`gives ${LYING_FILES.mp3} a job of its decoded duration (0.3 s, not 20 s)`, async () => {
      const uid = await createVideo(app, KEYS.a, { audioUrl: files.url(LYING_FILES.mp3), avatarId });
      const job = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a);
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const input = app.lipSync.inputs.at(-1);
      assert.ok(input, 'the engine ran');
      assert.ok(input.durationSec > 0.2 && input.durationSec < 0.4, `the job's duration is ${input.durationSec} s`);
      const video = await saveTo(path(`${adapter}-result.mp4`), await download(String(job.path)));
      const seconds = Number((await ffprobe(video)).format.duration);
      assert.ok(seconds < 1, `the video lasts ${seconds} s`);
    });
  });
}
