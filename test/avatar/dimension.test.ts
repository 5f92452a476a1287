/**
 * The built-in lip-sync engine at a job's frame size: the mp4 has exactly that size, the background
 * covers the whole frame, and the avatar is framed for the shape (see frameDesign()): centred, scaled to
 * the shorter side without stretching, standing on the bottom edge of a landscape frame, and in a portrait
 * frame with a quarter of the spare height above the head and the torso reaching the bottom edge.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createCanvas } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/binaries.js';
import { PORTRAIT_HEADROOM } from '../../src/inference/render/framing.js';
import { builtIns, FixedSequenceAnalyzer, writeSine } from './helpers.js';

const run = promisify(execFile);

let dir: string;
let audio: string;
let background: string;
let binaries: MediaBinaries;
let ava: AvatarDefinition;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-dimension-'));
  binaries = await resolveMediaBinaries();
  audio = join(dir, 'tone.wav');
  await writeSine(binaries.ffmpegPath, audio, 1);
  // A pure green backdrop of yet another shape (4:3): covering crops it, never stretches the avatar.
  const img = createCanvas(64, 48);
  const ctx = img.getContext('2d');
  ctx.fillStyle = '#00ff00';
  ctx.fillRect(0, 0, 64, 48);
  background = join(dir, 'green.png');
  await writeFile(background, await img.encode('png'));
  ava = (await builtIns()).get('ava')!;
});
after(() => rm(dir, { recursive: true, force: true }));

/** Renders 1 s with the built-in engine at `size` (none: the avatar's own) over the green background. */
async function renderAt(name: string, size?: { width: number; height: number }): Promise<string> {
  const outputPath = join(dir, `${name}.mp4`);
  const engine = new CanvasLipSyncEngine(new FixedSequenceAnalyzer(1), { binaries });
  await engine.render(
    { audioPath: audio, durationSec: 1, avatar: ava, backgroundPath: background, outputPath, ...(size ? { outputSize: size } : {}) },
    { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir },
  );
  return outputPath;
}

/** The video stream's size as ffprobe reports it. */
async function probedSize(path: string): Promise<{ width: number; height: number }> {
  const { stdout } = await run(binaries.ffprobePath, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'json', path]);
  const [stream] = (JSON.parse(stdout) as { streams: { width: number; height: number }[] }).streams;
  assert.ok(stream);
  return { width: stream.width, height: stream.height };
}

/** The first frame as RGB bytes. */
async function firstFrame(path: string): Promise<Buffer> {
  const { stdout } = await run(binaries.ffmpegPath, ['-v', 'error', '-nostdin', '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

const isGreen = (rgb: Buffer, i: number) => rgb[i + 1]! > 190 && rgb[i]! < 70 && rgb[i + 2]! < 70;

/** The box of the pixels that are not the green background, and whether every corner is green. */
function avatarBox(rgb: Buffer, width: number, height: number) {
  let [x0, y0, x1, y1] = [width, height, -1, -1];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (isGreen(rgb, (y * width + x) * 3)) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  const corner = (x: number, y: number) => isGreen(rgb, (y * width + x) * 3);
  const cornersGreen = corner(2, 2) && corner(width - 3, 2);
  return { x0, y0, x1, y1, w: x1 - x0 + 1, h: y1 - y0 + 1, cornersGreen };
}

test('1280×720 and 1080×1920 jobs make an mp4 of that size, the avatar framed for the shape, unstretched, the background covering the frame', async () => {
  const square = avatarBox(await firstFrame(await renderAt('square')), 512, 512);
  assert.ok(square.w > 100 && square.h > 100, `avatar at 512×512: ${JSON.stringify(square)}`);
  for (const size of [
    { width: 1280, height: 720 },
    { width: 1080, height: 1920 },
  ]) {
    const path = await renderAt(`${size.width}x${size.height}`, size);
    assert.deepEqual(await probedSize(path), size);
    const box = avatarBox(await firstFrame(path), size.width, size.height);
    const what = `${size.width}×${size.height}: ${JSON.stringify(box)}`;
    assert.ok(box.cornersGreen, `the background covers the top corners: ${what}`);
    // Centred: equal margins left and right (within 1 % of the width).
    const left = box.x0;
    const right = size.width - 1 - box.x1;
    assert.ok(left > 0 && right > 0 && Math.abs(left - right) <= size.width * 0.01, `margins ${left} / ${right}: ${what}`);
    // Scaled to the shorter side (as wide as at 512×512 times the scale: not stretched), the bust reaching the
    // bottom edge; the top of the head where the framing puts it.
    const scale = Math.min(size.width, size.height) / 512;
    assert.ok(Math.abs(box.w / (square.w * scale) - 1) < 0.04, `width ${box.w} vs ${square.w} × ${scale}: ${what}`);
    assert.equal(box.y1, size.height - 1, `the bust reaches the bottom edge: ${what}`);
    const headroom = (size.height - 512 * scale) * PORTRAIT_HEADROOM;
    assert.ok(Math.abs(box.y0 - (headroom + square.y0 * scale)) <= size.height * 0.01, `top ${box.y0} vs ${headroom} + ${square.y0} × ${scale}: ${what}`);
    if (size.height <= size.width) {
      assert.ok(Math.abs(box.h / (square.h * scale) - 1) < 0.04, `height ${box.h} vs ${square.h} × ${scale}: ${what}`);
    } else {
      // The head sits in the upper half of a portrait frame, not under an empty backdrop.
      assert.ok(box.y0 < size.height * 0.25, `the head starts in the upper quarter: ${what}`);
    }
  }
});
