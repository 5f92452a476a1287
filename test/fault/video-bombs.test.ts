/**
 * Issue #20, "frames of video inputs likewise": pictures inside media files are bounded by the decoder itself
 * (`-max_pixels`, src/inference/media/frame-limit.ts), whatever the file's header says. A 198 KB clip of three
 * 8192 × 8192 frames (765 MB to decode on two cores without the bound) is refused as a video avatar with 400
 * `not_video` naming the limit, upload or `videoUrl`, on Express and Koa; a clip whose header and first frames are
 * 320 × 240 and whose later frames are 8192 × 8192 gives only its small frames; an MP3 whose cover art is a
 * 256-megapixel PNG bomb is still accepted as audio; a recording of such frames sent as audio is refused with 400
 * `not_audio` naming the limit. The resident memory of this process and its children (ffmpeg and ffprobe included)
 * stays under a stated bound meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_DECODED_FRAME_PIXELS } from '../../src/inference/media/frame-limit.js';
import { normalisedGeometry, probeClip } from '../../src/inference/video/clip-probe.js';
import { decodeClip } from '../../src/inference/video/decode-clip.js';
import { ADAPTERS, KEYS, makeApp, SUITE_TIMEOUT_MS, type TestApp } from '../helpers/apps.js';
import { assertError, waitForJob } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES } from '../helpers/media.js';
import { withinRss } from '../helpers/process-rss.js';
import { makeVideoBombs, type VideoBombs } from '../helpers/video-bombs.js';

const h = useHarness();
const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;

/** Growth allowed while a file is refused or probed: no picture over the limit is ever allocated. */
const REFUSED_BOUND = 150e6;
/**
 * Growth allowed while a clip is decoded: one ffmpeg at the limit (a 4096 × 2160 H.264 clip decoded to 1920 × 1012
 * peaked at 258 MB; without the bound the switching clip took 547 MB).
 */
const DECODE_BOUND = 300e6;
const LIMIT = new RegExp(`frames are 8192×8192 pixels; at most ${(MAX_DECODED_FRAME_PIXELS / 1e6).toFixed(1)} megapixels`);

/** Waits for the separation job a `POST /v1/sourceSeparations` answer `body` names to end (completed or error). */
async function separationEnded(app: TestApp, key: string, body: unknown): Promise<void> {
  const uid = (body as { uid: string }[])[0]!.uid;
  await waitForJob(app, `/v1/sourceSeparations/${uid}`, key, ['completed', 'error'], 120_000);
}

let bombs: VideoBombs;
let made: Promise<VideoBombs> | undefined;
/** Made once, inside the harness's fixture folder (which its file server serves). */
const makeBombs = async () => {
  bombs = await (made ??= makeVideoBombs(h.fixtures.dir));
};

describe('video frames over the decoders\' limit', { timeout: SUITE_TIMEOUT_MS }, () => {
  before(makeBombs);
  it('a clip that grows from 320 × 240 to 8192 × 8192 after its header: only the small frames are decoded', async () => {
    const probe = await probeClip(bombs.switching, binaries);
    assert.deepEqual([probe.width, probe.height], [320, 240], 'the header shows only the small frames');
    const frames = await withinRss('switching clip, decoded', DECODE_BOUND, async () => {
      let count = 0;
      for await (const frame of decodeClip(bombs.switching, { geometry: normalisedGeometry(probe) }, binaries)) {
        count++;
        frame.release();
      }
      return count;
    });
    assert.equal(frames, 20, 'the 2 s of 320 × 240 at 10 fps, and none of the large frames');
  });
});

for (const adapter of ADAPTERS) {
  describe(`video bombs over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    before(async () => {
      await makeBombs();
      app = await makeApp(adapter);
      // Both media command children started (two checks at once), so that no measurement counts a child's start;
      // the two jobs run to their end here, so that no measurement counts the separation child's start or work.
      const keys = [KEYS.c, KEYS.d];
      const warm = await Promise.all(keys.map((key) => app.http.post('/v1/sourceSeparations').set('key', key).send({ audioUri: h.url('speech.wav') })));
      assert.deepEqual(warm.map((res) => res.status), [201, 201]);
      await Promise.all(warm.map((res, i) => separationEnded(app, keys[i]!, res.body)));
    });
    after(() => app?.close());

    it('refuses a clip of 8192 × 8192 frames as a video avatar, uploaded and as videoUrl', async () => {
      const uploaded = await withinRss(`${adapter}, huge clip upload`, REFUSED_BOUND, () => app.http.post('/v2/avatar').set('key', KEYS.a).attach('file', bombs.huge));
      assertError(uploaded, 400, 'not_video', ['body.file']);
      assert.match(uploaded.body.error.message, LIMIT);
      const linked = await withinRss(`${adapter}, huge clip videoUrl`, REFUSED_BOUND, () => app.http.post('/v2/avatar').set('key', KEYS.a).send({ videoUrl: h.files.url('huge.mp4') }));
      assertError(linked, 400, 'not_video', ['body.videoUrl']);
      assert.match(linked.body.error.message, LIMIT);
    });

    it('accepts an MP3 whose cover art is a 256-megapixel PNG bomb, without decoding the picture', async () => {
      const created = await withinRss(`${adapter}, cover-art bomb`, REFUSED_BOUND, () =>
        app.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.files.url('cover-bomb.mp3') }),
      );
      assert.equal(created.status, 201, created.text);
      // Its job (a separation of the 3 s tone) ends before the next measurement starts.
      await separationEnded(app, KEYS.b, created.body);
    });

    it('refuses a recording of 8192 × 8192 frames sent as audio with 400 not_audio naming the limit', async () => {
      const refused = await withinRss(`${adapter}, huge recording as audio`, REFUSED_BOUND, () =>
        app.http.post('/v1/sourceSeparations').set('key', KEYS.b).send({ audioUri: h.files.url('huge-with-sound.mp4') }),
      );
      assertError(refused, 400, 'not_audio', ['body.audioUri']);
      assert.match(refused.body.error.message, LIMIT);
    });
  });
}
