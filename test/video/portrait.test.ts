/**
 * A silent 1280×720 clip of a real portrait (Debian's libdlib19.1, dlib's example photo of an actor, smiling with his
 * teeth) swaying: it holds no open mouth, so speech is drawn from its neutral mouth by the photo avatars' mouth model.
 * The job keeps everything outside the lower face, opens the mouth for open shapes (its own teeth: bright inside the
 * lips) and rests it at rest.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { VideoFace } from '../../src/domain/avatar/video-face.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../../src/inference/lipsync/mouth-track.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { decodeClip } from '../../src/inference/video/decode-clip.js';
import { renderVideoAvatar } from '../../src/inference/video/render-video-avatar.js';
import { prepareVideoAvatar } from '../../src/inference/video/video-avatars.js';
import { VideoFrameRenderer, type MouthSource } from '../../src/inference/video/video-frame-renderer.js';
import { portraitClip } from './helpers.js';
import { changeInside, lowerFaceBox, mouthBox, psnrOutside } from './measure.js';

describe('a silent 1280×720 clip of a real portrait', { timeout: 300_000 }, () => {
  let dir: string;
  let binaries: MediaBinaries;
  let face: VideoFace;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'video-portrait-'));
    binaries = await resolveMediaBinaries();
    const clip = await portraitClip(binaries, join(dir, 'portrait.mp4'), { seconds: 4 });
    face = (await prepareVideoAvatar({ clipPath: clip, outputDir: join(dir, 'face'), binaries })).face;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('draws open mouths from its neutral mouth, keeps the rest of the frame, rests at rest', async () => {
    const renderer = await VideoFrameRenderer.create(face);
    const { data } = renderer;
    assert.deepEqual([data.width, data.height, data.fps], [1280, 720, 25]);
    // Rest, then wide open, then rest again, a few frames each.
    const pattern: MouthShape[] = [RESTING_MOUTH, VISEME_SHAPES.D, VISEME_SHAPES.C, RESTING_MOUTH];
    const mouths = Array.from({ length: 40 }, (_, i) => pattern[Math.floor(i / 10)]!);
    const sources: MouthSource[] = [];
    const outputPath = join(dir, 'job.mp4');
    await renderVideoAvatar({ face, mouths, total: mouths.length, outputPath, binaries, onSource: (i, source) => (sources[i] = source) });
    assert.ok(sources.slice(10, 30).every((s) => s === 'synthesized'), `open shapes drawn from the neutral mouth: ${sources.join(' ')}`);
    assert.ok([...sources.slice(0, 10), ...sources.slice(30)].every((s) => s === 'rest'));
    const geometry = { width: data.width, height: data.height, fps: data.fps };
    const clip = decodeClip(face.clipPath, { geometry, normalised: true }, binaries);
    const open: number[] = [];
    const resting: number[] = [];
    const psnrs: number[] = [];
    for await (const frame of decodeClip(outputPath, { geometry, normalised: true }, binaries)) {
      const source = (await clip.next()).value!;
      const points = renderer.pointsAt(frame.index);
      psnrs.push(psnrOutside(frame.pixels, source.pixels, data.width, data.height, lowerFaceBox(points, data.width, data.height)));
      const change = changeInside(frame.pixels, source.pixels, data.width, mouthBox(points, data.width, data.height));
      (mouths[frame.index] === RESTING_MOUTH ? resting : open).push(change);
      source.release();
      frame.release();
    }
    await clip.return(undefined);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    assert.ok(Math.min(...psnrs) >= 38, `outside the lower face the video is the clip: PSNR ${Math.min(...psnrs).toFixed(1)} dB at worst`);
    assert.ok(mean(open) > 5 * Math.max(1, mean(resting)), `the mouth opens (${mean(open).toFixed(2)}) and rests (${mean(resting).toFixed(2)})`);
  });
});
