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
