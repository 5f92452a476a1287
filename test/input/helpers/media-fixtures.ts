import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { MediaBinaries } from '../../../src/inference/media/index.js';

const run = promisify(execFile);

/** ffmpeg arguments (after `-y -v error`) producing each fixture from lavfi sources; all are tiny. */
const RECIPES = {
  'tone.wav': ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=22050', '-f', 'wav'],
  'tone.mp3': ['-f', 'lavfi', '-i', 'sine=duration=1', '-b:a', '32k', '-f', 'mp3'],
  'clip.mp4': [
    '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-f', 'lavfi', '-i', 'sine=duration=1',
    '-shortest', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '32k', '-f', 'mp4',
  ],
  'clip.mov': [
    '-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-f', 'lavfi', '-i', 'sine=duration=1',
    '-shortest', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '32k', '-f', 'mov',
  ],
  'silent-video.mp4': ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10', '-c:v', 'libx264', '-f', 'mp4'],
  'long.wav': ['-f', 'lavfi', '-i', 'anullsrc=sample_rate=8000:channel_layout=mono', '-t', '12', '-c:a', 'pcm_u8', '-f', 'wav'],
  'tone.ogg': ['-f', 'lavfi', '-i', 'sine=duration=1', '-c:a', 'libvorbis', '-f', 'ogg'],
  'tone.flac': ['-f', 'lavfi', '-i', 'sine=duration=1', '-f', 'flac'],
  'frame.png': ['-f', 'lavfi', '-i', 'testsrc=size=32x24', '-frames:v', '1', '-f', 'image2', '-c:v', 'png'],
} as const satisfies Record<string, readonly string[]>;

/** Name of a generated fixture. */
export type FixtureName = keyof typeof RECIPES;

/** A temp directory holding generated media files; `cleanup()` removes it. */
export interface MediaFixtures {
  dir: string;
  path(name: FixtureName): string;
  cleanup(): Promise<void>;
}

/** Generates the named fixtures (all when none named) with the system ffmpeg into a fresh temp directory. */
export async function makeMediaFixtures(names: readonly FixtureName[] = Object.keys(RECIPES) as FixtureName[]): Promise<MediaFixtures> {
  const dir = await mkdtemp(join(tmpdir(), 'va-media-'));
  // Output names carry no extension: the code under test must decide from content, not names.
  const path = (name: FixtureName): string => join(dir, name.replace('.', '_'));
  const ffmpeg = TEST_BINARIES.ffmpegPath;
  await Promise.all(names.map((name) => run(ffmpeg, ['-y', '-v', 'error', ...RECIPES[name], path(name)])));
  return { dir, path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Debian's ffmpeg and ffprobe, what the service picks by default on this machine. */
export const SYSTEM_BINARIES: MediaBinaries = {
  ffmpegPath: '/usr/bin/ffmpeg',
  ffprobePath: '/usr/bin/ffprobe',
  source: { ffmpeg: 'system', ffprobe: 'system' },
};

const PACKAGED_FFMPEG = 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg';
const PACKAGED_FFPROBE = 'node_modules/@ffprobe-installer/linux-x64/ffprobe';

/**
 * Binaries for tests: the installer packages' static builds when present (they start in ~20 ms, Debian's
 * dynamically linked ffmpeg/ffprobe in 100-300 ms, which dominates this suite), else the system ones.
 */
export const TEST_BINARIES: MediaBinaries =
  existsSync(PACKAGED_FFMPEG) && existsSync(PACKAGED_FFPROBE)
    ? { ffmpegPath: PACKAGED_FFMPEG, ffprobePath: PACKAGED_FFPROBE, source: { ffmpeg: 'package', ffprobe: 'package' } }
    : SYSTEM_BINARIES;
