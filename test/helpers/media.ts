import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeAudio } from '../../src/inference/media/index.js';

const exec = promisify(execFile);

const root = fileURLToPath(new URL('../../', import.meta.url));
const packaged = {
  ffmpeg: join(root, 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg'),
  ffprobe: join(root, 'node_modules/@ffprobe-installer/linux-x64/ffprobe'),
};

/**
 * ffmpeg/ffprobe for the tests and the instances under test: the installer packages' static builds when present
 * (they start in ~10 ms; Debian's dynamically linked ones take 100-300 ms, which would dominate the suite).
 */
export const BINARIES =
  existsSync(packaged.ffmpeg) && existsSync(packaged.ffprobe)
    ? { ffmpegPath: packaged.ffmpeg, ffprobePath: packaged.ffprobe }
    : { ffmpegPath: '/usr/bin/ffmpeg', ffprobePath: '/usr/bin/ffprobe' };

/** The whole audio of `path` decoded by the service's decoder (`decodeAudio`) to interleaved float samples. */
export async function decodePcm(path: string, sampleRate: number, channels: number): Promise<Float32Array> {
  const chunks: Buffer[] = [];
  const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
  for await (const c of decodeAudio(path, { sampleRate, channels }, binaries)) chunks.push(c as Buffer);
  const b = Buffer.concat(chunks);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

/** Runs ffmpeg quietly with `args` (after `-y -v error -nostdin`); aborts with `signal`. */
export async function ffmpeg(args: readonly string[], signal?: AbortSignal): Promise<void> {
  await exec(BINARIES.ffmpegPath, ['-y', '-v', 'error', '-nostdin', ...args], { signal });
}

/** What `ffprobe -show_format -show_streams` says about a file. */
export interface ProbeResult {
  format: { format_name: string; duration?: string; tags?: Record<string, string> };
  streams: { codec_type: string; codec_name: string }[];
}

/** Probes a file with the system ffprobe; rejects when ffprobe cannot read it. */
export async function ffprobe(path: string): Promise<ProbeResult> {
  const { stdout } = await exec(BINARIES.ffprobePath, ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', path]);
  return JSON.parse(stdout) as ProbeResult;
}

/**
 * Files served to the service as `audioUrl`/`audioUri` (by the fixture server) and copied by the test doubles.
 * Names carry the extension a client would see; the service must judge by content, not by name.
 */
const SINE = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=16000'];
const TESTSRC = ['-f', 'lavfi', '-i', 'testsrc=duration=1:size=64x48:rate=10'];
const AV_CODECS = ['-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '32k'];
const RECIPES: Record<string, readonly string[]> = {
  /** 6 minutes of silence: over the 5-minute limit of avatar videos (tiny: 4 kHz, 8 bit). */
  'long.wav': ['-f', 'lavfi', '-i', 'anullsrc=sample_rate=4000:channel_layout=mono', '-t', '360', '-c:a', 'pcm_u8', '-f', 'wav'],
  'image.png': ['-f', 'lavfi', '-i', 'color=c=blue:s=32x32', '-frames:v', '1', '-c:v', 'png', '-f', 'image2'],
  'clip.mp4': [...TESTSRC, ...SINE, ...AV_CODECS, '-movflags', '+faststart', '-f', 'mp4'],
  'clip.mov': [...TESTSRC, ...SINE, ...AV_CODECS, '-f', 'mov'],
  /** About 80 KB: over a 50 KB upload limit, yet within the multipart allowance, so only the streamed count catches it. */
  'tone-80k.wav': ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2.5:sample_rate=16000', '-c:a', 'pcm_s16le', '-f', 'wav'],
  'tone.flac': [...SINE, '-f', 'flac'],
  'tone.ogg': [...SINE, '-c:a', 'libvorbis', '-f', 'ogg'],
};

/** Names of the generated fixture files. */
export const FIXTURE_NAMES = [
  'speech.wav',
  'speech.mp3',
  'long.wav',
  'image.png',
  'note.txt',
  'clip.mp4',
  'clip.mov',
  'mp4-named.mov',
  'tone-80k.wav',
  'tone.flac',
  'tone.ogg',
] as const;
export type FixtureName = (typeof FIXTURE_NAMES)[number];

/** A folder of generated fixtures. */
export interface Fixtures {
  dir: string;
  path(name: FixtureName): string;
}

let made: Promise<Fixtures> | undefined;
let madeDir: string | undefined;

/** Generates every fixture once per process (about a second); later calls share the folder. */
export function fixtures(): Promise<Fixtures> {
  made ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'va-contract-fixtures-'));
    madeDir = dir;
    const path = (name: FixtureName) => join(dir, name);
    await Promise.all([
      exec('espeak-ng', ['-w', path('speech.wav'), 'Hello, this is the virtual anchor test speaking.']).then(() =>
        ffmpeg(['-i', path('speech.wav'), '-ac', '1', '-b:a', '32k', '-f', 'mp3', path('speech.mp3')]),
      ),
      ...Object.entries(RECIPES).map(([name, args]) => ffmpeg([...args, join(dir, name)])),
      writeFile(path('note.txt'), 'this is not media\n'),
    ]);
    await copyFile(path('clip.mp4'), path('mp4-named.mov'));
    return { dir, path };
  })();
  return made;
}

/** Removes the fixture folder (call once, at the end of a test file). */
export async function removeFixtures(): Promise<void> {
  if (!made) return;
  await made.catch(() => undefined);
  made = undefined;
  if (madeDir) await rm(madeDir, { recursive: true, force: true });
  madeDir = undefined;
}
