import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import type { MouthShape, MouthTrackAnalyzer } from '../../src/inference/lipsync/mouth.js';

/** The bundled avatars, by id. */
export async function builtIns(): Promise<Map<string, AvatarDefinition>> {
  const defs = await loadAvatarDefinitions();
  return new Map(defs.map((d) => [d.id, d]));
}

/** SHA-256 of a frame's bytes. */
export function hashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Mean absolute RGB difference per pixel inside a rectangle of two RGBA frames of width `w`. */
export function regionDiff(a: Uint8Array, b: Uint8Array, w: number, ...box: [number, number, number, number]): number {
  const [x0, y0, x1, y1] = box.map(Math.round) as [number, number, number, number];
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * w + x) * 4;
      sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
    }
  }
  return sum / ((x1 - x0) * (y1 - y0));
}

/** The RGBA pixel at (x, y). */
export function pixel(frame: Uint8Array, w: number, x: number, y: number): [number, number, number, number] {
  const i = (y * w + x) * 4;
  return [frame[i]!, frame[i + 1]!, frame[i + 2]!, frame[i + 3]!];
}

const run = promisify(execFile);

/** One stream as ffprobe reports it. */
export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  pix_fmt?: string;
  duration?: string;
  nb_frames?: string;
}

/** ffprobe's streams of `path`. */
export async function ffprobeStreams(ffprobePath: string, path: string): Promise<ProbedStream[]> {
  const { stdout } = await run(ffprobePath, ['-v', 'error', '-show_streams', '-of', 'json', path]);
  return (JSON.parse(stdout) as { streams: ProbedStream[] }).streams;
}

/** Writes a sine tone of `seconds` to `path` as wav. */
export async function writeSine(ffmpegPath: string, path: string, seconds: number): Promise<void> {
  await run(ffmpegPath, ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=330:duration=${seconds}`, '-ar', '44100', '-y', path]);
}

/** Test double: a fixed cycle of visemes, `ceil(duration × fps)` entries like the real analyzer. */
export class FixedSequenceAnalyzer implements MouthTrackAnalyzer {
  calls = 0;
  constructor(private readonly seconds: number) {}
  async analyze(_audioPath: string, fps: number): Promise<MouthShape[]> {
    this.calls++;
    const cycle: MouthShape[] = [
      { open: 0, width: 0, round: 0, closed: 1, teeth: 0 },
      { open: 0.8, width: 0.2, round: 0, closed: 0, teeth: 0 },
      { open: 0.3, width: 1, round: 0, closed: 0, teeth: 0 },
      { open: 0.35, width: 0, round: 1, closed: 0, teeth: 0 },
      { open: 0.1, width: 0.2, round: 0, closed: 0, teeth: 1 },
    ];
    return Array.from({ length: Math.ceil(this.seconds * fps) }, (_, i) => cycle[Math.floor(i / 3) % cycle.length]!);
  }
}
