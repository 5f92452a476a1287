import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { resolveMediaBinaries } from '../../src/inference/media/index.js';
import { createPhotoAvatarAssetRenderer, photoDefinition } from '../../src/inference/photo/index.js';
import { THUMBNAIL_FACE_MARGIN, thumbnailSquare } from '../../src/inference/photo/photo-still.js';
import { detectFaces } from '../../src/inference/face/detect-faces.js';
import { FixedSequenceAnalyzer, writeSine } from '../avatar/helpers.js';
import { astronaut } from './helpers.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'photo-video-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const face = astronaut();

/** Width, height and frame count of the mp4's video stream. */
async function probeVideo(ffprobePath: string, path: string): Promise<{ width: number; height: number; frames: number; audio: boolean }> {
  const { stdout } = await run(ffprobePath, ['-v', 'error', '-count_frames', '-show_streams', '-of', 'json', path]);
  const streams = (JSON.parse(stdout) as { streams: Array<{ codec_type: string; width?: number; height?: number; nb_read_frames?: string }> }).streams;
  const video = streams.find((s) => s.codec_type === 'video');
  assert.ok(video, 'the mp4 has a video stream');
  return { width: video.width!, height: video.height!, frames: Number(video.nb_read_frames), audio: streams.some((s) => s.codec_type === 'audio') };
}

/** Width and height from a PNG's header. */
function pngSize(path: string): [number, number] {
  const bytes = readFileSync(path);
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe('photo avatar videos', () => {
  it('the lip-sync engine renders a job with a photo at the asked size (frames drawn on the worker thread)', async () => {
    const binaries = await resolveMediaBinaries();
    const audioPath = join(dir, 'tone.wav');
    await writeSine(binaries.ffmpegPath, audioPath, 1);
    const outputPath = join(dir, 'job.mp4');
    const progress: number[] = [];
    await new CanvasLipSyncEngine(new FixedSequenceAnalyzer(1), { binaries }).render(
      { audioPath, durationSec: 1, avatar: photoDefinition(face, 25, { width: 512, height: 512 }), photo: face, outputSize: { width: 320, height: 240 }, outputPath },
      { signal: new AbortController().signal, onProgress: (p) => progress.push(p.done), workDir: dir },
    );
    assert.deepEqual(await probeVideo(binaries.ffprobePath, outputPath), { width: 320, height: 240, frames: 25, audio: true });
    assert.equal(progress.at(-1), 25);
  });

  it('the asset renderer writes the idle clip, preview and thumbnail at their sizes', async () => {
    const binaries = await resolveMediaBinaries();
    const renderer = createPhotoAvatarAssetRenderer({ binaries, idleSeconds: 1, size: { width: 256, height: 256 }, thumbnailSize: 96 });
    const idle = join(dir, 'idle.mp4');
    await renderer.renderIdleVideo(face, 20, idle);
    assert.deepEqual(await probeVideo(binaries.ffprobePath, idle), { width: 256, height: 256, frames: 20, audio: false });
    await renderer.renderPreview(face, join(dir, 'preview.png'));
    assert.deepEqual(pngSize(join(dir, 'preview.png')), [256, 256]);
    await renderer.renderThumbnail(face, join(dir, 'thumb.png'));
    assert.deepEqual(pngSize(join(dir, 'thumb.png')), [96, 96]);
  });

  it('the thumbnail is the face, cut from the photo (its box 91×88 px of 512²): the detector finds it filling most of the thumbnail; the preview stays the whole frame', async () => {
    const renderer = createPhotoAvatarAssetRenderer({ thumbnailSize: 128 });
    const thumb = join(dir, 'face-thumb.png');
    await renderer.renderThumbnail(face, thumb);
    assert.deepEqual(pngSize(thumb), [128, 128]);
    const [found, ...others] = (await detectFaces(thumb)).faces;
    assert.ok(found, 'a face in the thumbnail');
    assert.equal(others.length, 0);
    // The square is 1.6 times the landmarks' box: the face spans about 1/1.6 of it (it was 88/512 of the whole frame).
    const { box } = found;
    console.log(`thumbnail face box ${box.width.toFixed(0)}×${box.height.toFixed(0)} px at (${box.x.toFixed(0)}, ${box.y.toFixed(0)}) of 128²`);
    assert.ok(box.width > 0.5 * 128 && box.height > 0.5 * 128, `the face fills most of it: ${JSON.stringify(box)}`);
    const centre = [box.x + box.width / 2, box.y + box.height / 2];
    assert.ok(Math.abs(centre[0]! - 64) < 12 && Math.abs(centre[1]! - 64) < 20, `and sits in its middle: ${centre.join(', ')}`);
    // The preview is still the whole frame: the face there is as small as in the photo.
    await renderer.renderPreview(face, join(dir, 'whole.png'));
    const [inPreview] = (await detectFaces(join(dir, 'whole.png'))).faces;
    assert.ok(inPreview && inPreview.box.height < 100, `the preview's face is ${inPreview?.box.height} px high of 512`);
  });

  it("the thumbnail's square stays inside the part of the photo the frame shows", () => {
    const { landmarks } = face;
    const image = { width: 512, height: 512 };
    const frame = { width: 512, height: 512 };
    // The points' bounding box (this hand-made record's `box` reaches the forehead).
    const xs = landmarks.points.map(([x]) => x);
    const ys = landmarks.points.map(([, y]) => y);
    const box = { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
    const middle = thumbnailSquare(landmarks, image, frame);
    assert.ok(Math.abs(middle.side - THUMBNAIL_FACE_MARGIN * Math.max(box.width, box.height)) < 1e-9, `side ${middle.side}`);
    // The face moved to the top-left corner: the square is pushed inside the photo, keeping its size.
    const shift = (dx: number, dy: number) => ({ ...landmarks, points: landmarks.points.map(([x, y]) => [x + dx, y + dy] as [number, number]) });
    const corner = thumbnailSquare(shift(-box.x + 2, -box.y + 2), image, frame);
    assert.deepEqual([corner.x, corner.y, Math.round(corner.side)], [0, 0, Math.round(middle.side)]);
    // A wide photo is shown cut to the frame's square (its middle 512 of 1024): the square stays in that part.
    const wide = thumbnailSquare(shift(-box.x + 2, 0), { width: 1024, height: 512 }, frame);
    assert.equal(wide.x, 256);
    // A face larger than the frame: the square is the whole shown part.
    const huge = thumbnailSquare({ ...landmarks, points: landmarks.points.map(([x, y]) => [(x - 225) * 5 + 256, (y - 130) * 5 + 256] as [number, number]) }, image, frame);
    assert.deepEqual(huge, { x: 0, y: 0, side: 512 });
  });

  it('a photo that does not decode fails the job with the reason', async () => {
    const binaries = await resolveMediaBinaries();
    const audioPath = join(dir, 'tone-short.wav');
    await writeSine(binaries.ffmpegPath, audioPath, 0.4);
    const broken = { ...face, imagePath: audioPath };
    const outputPath = join(dir, 'broken.mp4');
    await assert.rejects(
      new CanvasLipSyncEngine(new FixedSequenceAnalyzer(0.4), { binaries }).render(
        { audioPath, durationSec: 0.4, avatar: photoDefinition(face, 25, { width: 128, height: 128 }), photo: broken, outputPath },
        { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir },
      ),
      /the avatar's photo could not be decoded: the file is not a JPEG, PNG or WebP image/,
    );
    assert.equal(existsSync(outputPath), false, 'no partial mp4 is left');
  });
});
