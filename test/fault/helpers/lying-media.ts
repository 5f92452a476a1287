import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpeg } from '../../helpers/media.js';

/**
 * Media files whose headers lie about their duration, built with ffmpeg and patched in their bytes. All are
 * cheap to make: 8 kHz mono silence or tone at a few kbit/s, long Opus made by stream-copying a short one.
 */
export const LYING_FILES = {
  /** 15 minutes of Opus in Matroska; the Segment Info Duration says 3 s. */
  mkv: 'opus-15min-says-3s.mkv',
  /** 15 minutes of AAC in MP4; `mvhd`, `tkhd` and `mdhd` say 3 s. */
  mp4: 'aac-15min-says-3s.mp4',
  /** 30 minutes of AAC in an M4A (an mp4 brand, accepted for separation); the header says 10 minutes. */
  m4a: 'aac-30min-says-10min.m4a',
  /** An mp3 whose Xing/Info frame counts 20 s of frames, cut after about 0.3 s of them. */
  mp3: 'mp3-0.3s-says-20s.mp3',
  /** 15 minutes of Opus whose block timestamps (and header) span 9 s: time-based `-t` would stop after 15 minutes. */
  squashed: 'opus-15min-timestamps-9s.mkv',
  /** 10 s of Opus whose block timestamps (and header) span 1000 s: time-based `-t 3` would keep 0.03 s of it. */
  stretched: 'opus-10s-timestamps-1000s.mkv',
} as const;

const SILENCE_8K = ['-f', 'lavfi', '-i', 'anullsrc=sample_rate=8000:channel_layout=mono'];

/** Writes every file of {@link LYING_FILES} into `dir`. */
export async function makeLyingMedia(dir: string): Promise<void> {
  const path = (name: string) => join(dir, name);
  const opus10s = path('opus-10s.mkv');
  await Promise.all([
    ffmpeg([...SILENCE_8K, '-t', '10', '-c:a', 'libopus', '-b:a', '6k', '-frame_duration', '60', '-f', 'matroska', opus10s]),
    ffmpeg([...SILENCE_8K, '-t', '900', '-c:a', 'aac', '-b:a', '8k', '-f', 'mp4', path(LYING_FILES.mp4)]),
    ffmpeg([...SILENCE_8K, '-t', '1800', '-c:a', 'aac', '-b:a', '8k', '-f', 'ipod', path(LYING_FILES.m4a)]),
    ffmpeg([
      '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=22050:duration=20',
      '-ac', '1', '-c:a', 'libmp3lame', '-b:a', '32k', '-f', 'mp3', path('full.mp3'),
    ]),
  ]);
  // 90 copies of 10 s of Opus, stream-copied (encoding 15 minutes of Opus takes ~20 s of CPU).
  await ffmpeg(['-stream_loop', '89', '-i', opus10s, '-c', 'copy', '-f', 'matroska', path(LYING_FILES.mkv)]);
  await ffmpeg(['-itsscale', '100', '-i', opus10s, '-c', 'copy', '-f', 'matroska', path(LYING_FILES.stretched)]);
  await rm(opus10s);
  await ffmpeg(['-itsscale', '0.01', '-i', path(LYING_FILES.mkv), '-c', 'copy', '-f', 'matroska', path(LYING_FILES.squashed)]);
  await patch(path(LYING_FILES.mkv), (bytes) => patchMatroskaDuration(bytes, 3));
  await patch(path(LYING_FILES.mp4), (bytes) => patchMp4Duration(bytes, 3));
  await patch(path(LYING_FILES.m4a), (bytes) => patchMp4Duration(bytes, 600));
  // 1500 bytes: the ID3 tag, the Info frame (which still counts 20 s of frames), and ~0.3 s of audio.
  const full = await readFile(path('full.mp3'));
  if (!full.includes('Info') && !full.includes('Xing')) throw new Error('the mp3 has no Xing/Info frame');
  await writeFile(path(LYING_FILES.mp3), full.subarray(0, 1500));
  await rm(path('full.mp3'));
}

async function patch(file: string, change: (bytes: Buffer) => void): Promise<void> {
  const bytes = await readFile(file);
  change(bytes);
  await writeFile(file, bytes);
}

/** Rewrites the Duration (ID 0x4489, a float in TimestampScale units, 1 ms as ffmpeg writes) of the Segment Info. */
export function patchMatroskaDuration(bytes: Buffer, seconds: number): void {
  const info = bytes.indexOf(Buffer.from([0x15, 0x49, 0xa9, 0x66]));
  const at = bytes.indexOf(Buffer.from([0x44, 0x89]), info);
  if (info < 0 || at < 0) throw new Error('no Matroska Segment Info Duration found');
  const size = bytes[at + 2];
  if (size === 0x88) bytes.writeDoubleBE(seconds * 1000, at + 3);
  else if (size === 0x84) bytes.writeFloatBE(seconds * 1000, at + 3);
  else throw new Error(`unexpected Duration size byte ${size}`);
}

/**
 * Rewrites the durations of an ISO-BMFF file: `mvhd` and every `tkhd` (movie timescale) and `mdhd` (media
 * timescale); version 0 and 1 boxes. The sample tables, and with them the real audio, stay as they are.
 */
export function patchMp4Duration(bytes: Buffer, seconds: number): void {
  const moov = topLevelBox(bytes, 'moov');
  // Searched inside `moov` only, so that audio data that happens to spell a box name is left alone.
  const boxes = (type: string): number[] => {
    const found: number[] = [];
    for (let at = bytes.indexOf(type, moov.start, 'latin1'); at >= 0 && at < moov.end; at = bytes.indexOf(type, at + 1, 'latin1')) {
      found.push(at);
    }
    return found;
  };
  // Offsets below are from the box type: version(1) flags(3), then the fields of each box.
  const write = (at: number, v1: boolean, value: number) => {
    if (v1) bytes.writeBigUInt64BE(BigInt(Math.round(value)), at);
    else bytes.writeUInt32BE(Math.round(value), at);
  };
  const [mvhd] = boxes('mvhd');
  if (mvhd === undefined) throw new Error('no mvhd box');
  const mvhdV1 = bytes[mvhd + 4] === 1;
  const movieScale = bytes.readUInt32BE(mvhd + (mvhdV1 ? 24 : 16));
  write(mvhd + (mvhdV1 ? 28 : 20), mvhdV1, seconds * movieScale);
  for (const tkhd of boxes('tkhd')) {
    const v1 = bytes[tkhd + 4] === 1;
    write(tkhd + (v1 ? 32 : 24), v1, seconds * movieScale);
  }
  for (const mdhd of boxes('mdhd')) {
    const v1 = bytes[mdhd + 4] === 1;
    const scale = bytes.readUInt32BE(mdhd + (v1 ? 24 : 16));
    write(mdhd + (v1 ? 28 : 20), v1, seconds * scale);
  }
}

/** Where a top-level ISO-BMFF box lies. */
function topLevelBox(bytes: Buffer, type: string): { start: number; end: number } {
  for (let at = 0; at + 8 <= bytes.length; ) {
    const size32 = bytes.readUInt32BE(at);
    const size = size32 === 1 ? Number(bytes.readBigUInt64BE(at + 8)) : size32 === 0 ? bytes.length - at : size32;
    if (bytes.toString('latin1', at + 4, at + 8) === type) return { start: at, end: at + size };
    if (size < 8) break;
    at += size;
  }
  throw new Error(`no top-level ${type} box`);
}
