/**
 * A video avatar asked for by `{ videoUrl }` has its clip probed once: the input check's probe (download, then
 * ffprobe's streams and format) is what the avatar service reads the clip from; before, the service ran ffprobe's
 * stream probe on it a second time. Counted with an ffprobe that logs its runs (test/helpers/counting-ffprobe.ts),
 * on a clip refused for having no face (both checks ran, nothing is made in the background) and on one refused as
 * too short, with their codes and fields as before; the packet count (the clip's length) still runs once.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { countingFfprobe, type CountingFfprobe } from '../helpers/counting-ffprobe.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { ffmpeg } from '../helpers/media.js';
import { FakeFaceDetector, FakePhotoRenderer } from '../helpers/photo-doubles.js';

/** `seconds` of ffmpeg's test picture at 320×240 (a size the face detector double finds no face in), 25 fps. */
const testClip = (out: string, seconds: number) =>
  ffmpeg(['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${seconds}`, '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', out]);

describe('a video avatar from videoUrl: its clip is probed once', () => {
  /** The clips' folder and server, the counting ffprobe and the app that runs it. */
  let setup: { dir: string; files: FileServer; ffprobe: CountingFfprobe; app: TestApp } | undefined;
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'va-video-url-probes-'));
    await Promise.all([testClip(join(dir, 'room.mp4'), 4), testClip(join(dir, 'short.mp4'), 2)]);
    const ffprobe = await countingFfprobe(dir);
    const backends = { faceDetector: new FakeFaceDetector(), photoRenderer: new FakePhotoRenderer() };
    setup = { dir, ffprobe, files: await startFileServer(dir), app: await makeApp('express', { ffprobePath: ffprobe.path, backends }) };
  });
  after(async () => {
    await setup?.app.close();
    await setup?.files.close();
    if (setup) await rm(setup.dir, { recursive: true, force: true });
  });

  /** Posts `{ videoUrl }` for `name`; resolves with the answer and the ffprobe runs it made on the clip, by kind. */
  const post = async (name: string) => {
    const { app, files, ffprobe } = setup!;
    const before = (await ffprobe.runs()).length;
    const res = await app.http.post('/v2/avatar').set('key', KEYS.a).send({ videoUrl: files.url(name) });
    const runs = (await ffprobe.runs()).slice(before);
    return { res, streamProbes: runs.filter((args) => args.includes('-show_streams')).length, packetCounts: runs.filter((args) => args.includes('packet=')).length, runs };
  };

  it('probes a clip with no face once, and answers no_face', async () => {
    const { res, streamProbes, packetCounts, runs } = await post('room.mp4');
    assertError(res, 400, 'no_face', ['body.videoUrl']);
    assert.equal(streamProbes, 1, `ffprobe's stream probe ran ${streamProbes} times:\n${runs.join('\n')}`);
    assert.equal(packetCounts, 1, 'the clip length is counted from its packets once');
  });

  it('probes a 2 s clip once, and answers too_short', async () => {
    const { res, streamProbes } = await post('short.mp4');
    assertError(res, 400, 'too_short', ['body.videoUrl']);
    assert.equal(streamProbes, 1);
  });
});
