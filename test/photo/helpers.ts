import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { faceLandmarksSchema } from '../../src/domain/avatar/face-landmarks.js';
import type { PhotoFace } from '../../src/domain/avatar/photo.js';
import type { FaceMesh } from '../../src/inference/photo/face-mesh.js';
import { moveFace } from '../../src/inference/photo/face-motion.js';
import type { PhotoFrameRenderer } from '../../src/inference/photo/photo-frame-renderer.js';
import { RESTING_MOUTH, type MouthShape } from '../../src/inference/lipsync/mouth.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { wavFile } from '../../src/testing/wav.js';
import { windowedSsim } from '../helpers/ssim.js';

const FIXTURES = new URL('./fixtures/', import.meta.url);

/** The astronaut portrait (512×512, public domain) with its hand-placed landmarks. */
export function astronaut(): PhotoFace {
  return {
    imagePath: new URL('astronaut.jpg', FIXTURES).pathname,
    landmarks: faceLandmarksSchema.parse(JSON.parse(readFileSync(new URL('astronaut.landmarks.json', FIXTURES), 'utf8'))),
  };
}

/** Luma of RGBA pixel `i` (pixel index). */
const luma = (p: Uint8Array, i: number) => 0.299 * p[4 * i]! + 0.587 * p[4 * i + 1]! + 0.114 * p[4 * i + 2]!;

/**
 * Mean SSIM of the luma of two RGBA frames over 8×8 windows (step 4), with the usual constants for 8-bit images;
 * with `region` (`x0, y0, x1, y1`, frame pixels), over the windows inside it only.
 */
export function ssim(a: Uint8Array, b: Uint8Array, width: number, height: number, region?: readonly [number, number, number, number]): number {
  const [rx0, ry0, rx1, ry1] = region ?? [0, 0, width, height];
  const box = { x0: Math.max(0, Math.round(rx0)), y0: Math.max(0, Math.round(ry0)), x1: Math.min(width, rx1), y1: Math.min(height, ry1) };
  return windowedSsim((i) => luma(a, i), (i) => luma(b, i), width, box);
}

/**
 * How far the idle head motion moves the face in frames `0 … frames - 1`, in frame pixels: the largest and the
 * median over frames of the largest distance a mesh point travels from rest (blinks and mouth left out). Use a
 * renderer of its own: reading its motion advances its rest count.
 */
export function headSway(renderer: PhotoFrameRenderer, frames: number): { max: number; median: number } {
  const { mesh } = renderer;
  const still = { open: 0, width: 0, round: 0, closed: 0, teeth: 0, blink: 0, rotation: 0, shiftX: 0, shiftY: 0 };
  const rest = moveFace(mesh, still, new Float64Array(mesh.count * 2));
  const moved = new Float64Array(mesh.count * 2);
  const perFrame = Array.from({ length: frames }, (_, index) => {
    const { rotation, shiftX, shiftY } = renderer.motionAt(index, RESTING_MOUTH);
    moveFace(mesh, { ...still, rotation, shiftX, shiftY }, moved);
    let largest = 0;
    for (let i = 0; i < mesh.count; i++) largest = Math.max(largest, Math.hypot(moved[2 * i]! - rest[2 * i]!, moved[2 * i + 1]! - rest[2 * i + 1]!));
    return largest;
  }).sort((a, b) => a - b);
  return { max: perFrame[frames - 1]!, median: perFrame[Math.floor(frames / 2)]! };
}

/** The mouth and chin region of a face mesh at rest (frame pixels): where speech moves the face. */
export function mouthRegion(mesh: FaceMesh): [number, number, number, number] {
  const { rest, axes } = mesh;
  const xs = [48, 54, 8].map((i) => rest[2 * i]!);
  const ys = [33, 8].map((i) => rest[2 * i + 1]!);
  const m = 0.15 * axes.iod;
  return [Math.min(...xs) - m, Math.min(...ys), Math.max(...xs) + m, Math.max(...ys) + m];
}

/**
 * The lower face of a face mesh at rest (frame pixels): from under the nose to below the chin, across the jaw from
 * cheek to cheek (landmarks 4–12): the region the mouth, the lips and the jaw move in.
 */
export function lowerFace(mesh: FaceMesh): [number, number, number, number] {
  const { rest, axes } = mesh;
  const xs = [4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => rest[2 * i]!);
  const m = 0.1 * axes.iod;
  return [Math.min(...xs), rest[2 * 33 + 1]!, Math.max(...xs), rest[2 * 8 + 1]! + m];
}

/** Pearson correlation of two equally long series. */
export function correlation(a: readonly number[], b: readonly number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += (a[i]! - ma) * (b[i]! - mb);
    aa += (a[i]! - ma) ** 2;
    bb += (b[i]! - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb || 1);
}

/** The photo tests' speech (two phrases, a pause between them) in `dir`, and its mouth track at `fps`. */
export async function newsSpeech(dir: string, fps: number): Promise<{ speech: SpeechWithPause; track: MouthShape[] }> {
  const speech = speechWithPause(dir, 'Good evening, here is the news.', 'Markets were calm today.');
  return { speech, track: await new OnnxMouthAnalyzer().analyze(speech.path, fps, undefined, speech.durationSec) };
}

/** A recording of two spoken phrases with a pause between them, and where the pause lies. */
export interface SpeechWithPause {
  path: string;
  durationSec: number;
  /** The pause between the phrases, in seconds. */
  pause: [number, number];
  /** Per video frame at `fps`: loudness in dB (RMS re full scale, floored at −60). */
  loudness(fps: number): number[];
}

/**
 * espeak-ng speech: `lead` s of silence, the first phrase, `gap` s of silence, the second, `lead` s of
 * silence (16-bit mono wav in `dir`). Fails, never skips, without espeak-ng (.ci/run installs it).
 */
export function speechWithPause(dir: string, first: string, second: string, gap = 1.2, lead = 0.5): SpeechWithPause {
  const say = (text: string, name: string) => {
    const path = join(dir, name);
    try {
      execFileSync('espeak-ng', ['-v', 'en', '-s', '150', '-w', path, text]);
    } catch (error) {
      throw new Error(`espeak-ng could not make the test speech (apt-get install espeak-ng): ${(error as Error).message}`);
    }
    const wav = readFileSync(path);
    const dataAt = wav.indexOf('data') + 8;
    return { rate: wav.readUInt32LE(24), pcm: wav.subarray(dataAt, wav.length - ((wav.length - dataAt) % 2)) };
  };
  const a = say(first, 'first.wav');
  const b = say(second, 'second.wav');
  const rate = a.rate;
  const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * rate) * 2);
  const pcm = Buffer.concat([silence(lead), a.pcm, silence(gap), b.pcm, silence(lead)]);
  const path = join(dir, 'speech-with-pause.wav');
  writeFileSync(path, wavFile(pcm, rate));
  const pauseStart = lead + a.pcm.length / 2 / rate;
  return {
    path,
    durationSec: pcm.length / 2 / rate,
    pause: [pauseStart, pauseStart + gap],
    loudness(fps) {
      const per = rate / fps;
      const frames = Math.ceil(pcm.length / 2 / per);
      return Array.from({ length: frames }, (_, i) => {
        let sum = 0;
        let count = 0;
        for (let s = Math.floor(i * per); s < Math.min(pcm.length / 2, Math.floor((i + 1) * per)); s++) {
          sum += (pcm.readInt16LE(2 * s) / 32768) ** 2;
          count++;
        }
        return Math.max(-60, 10 * Math.log10(sum / Math.max(count, 1) + 1e-12));
      });
    },
  };
}
