/**
 * Clips that cannot become a video avatar, each refused with its code and a message a person can act on, through the
 * video avatar child process; and clips that look odd but are fine: a phone clip stored sideways with rotation
 * metadata is prepared upright. The clips are made and prepared all at once (the preparations run in the pool's child
 * processes, one per core), each test reading its own result.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { videoFaceSchema } from '../../src/domain/avatar/video-face.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { VideoAvatarError } from '../../src/inference/video/errors.js';
import { facePose } from '../../src/inference/video/face-geometry.js';
import { decodeVideoLandmarks } from '../../src/inference/video/landmark-codec.js';
import type { PreparedVideoFace } from '../../src/inference/video/prepare-video-face.js';
import { prepareVideoAvatar } from '../../src/inference/video/video-avatars.js';
import { audioOnly, clmtrackrClip, corruptFile, cutClip, portraitClip } from './helpers.js';

/** Settles to its value when awaited, and is not an unhandled rejection while no test awaits it yet. */
function started<T>(work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return work;
}

describe('video avatar clips refused, and a phone clip accepted', { timeout: 300_000 }, () => {
  let dir: string;
  let binaries: MediaBinaries;
  /** Each test's clip and its preparation, all started at once (the pool prepares as many as there are cores). */
  let work: {
    audioOnly: Promise<VideoAvatarError>;
    corrupt: Promise<VideoAvatarError>;
    twoSeconds: Promise<VideoAvatarError>;
    sixSeconds: Promise<VideoAvatarError>;
    room: Promise<VideoAvatarError>;
    leaves: Promise<VideoAvatarError>;
    phone: Promise<PreparedVideoFace>;
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'video-bad-'));
    binaries = await resolveMediaBinaries();
    work = {
      audioOnly: started(audioOnly(join(dir, 'speech.wav')).then((clip) => refused(clip))),
      corrupt: started(refused(corruptFile(join(dir, 'corrupt.mp4')))),
      twoSeconds: started(cutClip(binaries, clmtrackrClip(), join(dir, 'two-seconds.mp4'), 2, 150).then((clip) => refused(clip))),
      sixSeconds: started(cutClip(binaries, clmtrackrClip(), join(dir, 'six-seconds.mp4'), 6, 150).then((clip) => refused(clip, { maxSeconds: 4 }))),
      // The room beside the person (the left third of franck.mp4: the wall and a loudspeaker), scaled up.
      room: started(cutClip(binaries, clmtrackrClip(), join(dir, 'room.mp4'), 3, 150, 'crop=100:288:0:0,scale=200:576').then((clip) => refused(clip))),
      leaves: started(portraitClip(binaries, join(dir, 'leaves.mp4'), { seconds: 6, width: 640, height: 360, leave: { from: 2, to: 4.5 } }).then((clip) => refused(clip))),
      phone: started(
        portraitClip(binaries, join(dir, 'phone.mp4'), { seconds: 4, width: 360, height: 640, phone: true }).then((clipPath) =>
          prepareVideoAvatar({ clipPath, outputDir: join(dir, 'phone'), binaries }),
        ),
      ),
    };
  });
  after(async () => {
    // Nothing left writing into the folder.
    if (work) await Promise.allSettled(Object.values(work));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Prepares `clipPath` and returns the VideoAvatarError it is refused with. */
  async function refused(clipPath: string, options: { maxSeconds?: number } = {}): Promise<VideoAvatarError> {
    const error = await prepareVideoAvatar({ clipPath, outputDir: join(dir, `out-${Math.random()}`), binaries, ...options }).then(
      () => assert.fail('the clip was accepted'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof VideoAvatarError, `a VideoAvatarError, not ${String(error)}`);
    return error;
  }

  it('an audio-only file: not_video', async () => {
    const error = await work.audioOnly;
    assert.equal(error.code, 'not_video');
    assert.match(error.message, /sound only/);
  });

  it('a corrupt file: not_video', async () => {
    const error = await work.corrupt;
    assert.equal(error.code, 'not_video');
  });

  it('a 2 s clip: too_short, with its decoded length and the minimum', async () => {
    const error = await work.twoSeconds;
    assert.equal(error.code, 'too_short');
    assert.match(error.message, /lasts 2\.0 s .* at least 3 s/);
  });

  it('a clip longer than the limit: too_long, decided by decoding', async () => {
    const error = await work.sixSeconds;
    assert.equal(error.code, 'too_long');
    assert.match(error.message, /more than 4 s/);
  });

  it('a clip without a face: no_face', async () => {
    const error = await work.room;
    assert.equal(error.code, 'no_face');
    assert.match(error.message, /no face/);
  });

  it('a clip where the face leaves the picture: face_lost, naming the seconds', async () => {
    const error = await work.leaves;
    assert.equal(error.code, 'face_lost');
    assert.match(error.message, /in 4\d % of the clip \(at 2\.\d–4\.\d s\).*at most 10 %/);
  });

  it('a phone clip stored sideways with rotation metadata: prepared upright', async () => {
    const prepared = await work.phone;
    const data = videoFaceSchema.parse(JSON.parse(readFileSync(prepared.face.facePath, 'utf8')));
    assert.deepEqual([data.width, data.height], [360, 640], 'portrait, as the phone showed it');
    assert.equal(data.source.rotation % 180, 90, 'the stored frames were turned by a quarter');
    const points = decodeVideoLandmarks(data).subarray(0, 136);
    const { roll } = facePose(points);
    assert.ok(Math.abs(roll) < 0.2, `the face is upright: its eye line tilts ${roll.toFixed(2)} rad`);
    assert.ok(points[2 * 8 + 1]! > points[2 * 27 + 1]!, 'the chin is below the eyes');
  });
});
