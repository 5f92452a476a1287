/**
 * Media files whose pictures decode far larger than the file: built here with ffmpeg rather than stored.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpeg } from './media.js';
import { zeroPng } from './image-bombs.js';

/** What {@link makeVideoBombs} writes into a folder. */
export interface VideoBombs {
  /** An MP4 of three grey 8192 × 8192 H.264 frames at 1 fps (about 200 KB; 67 megapixels a frame). */
  huge: string;
  /**
   * A Matroska clip whose header and first 20 frames (2 s at 10 fps) are 320 × 240, followed by three 8192 × 8192
   * frames: the stream changes its size after the header, so ffprobe reports 320 × 240.
   */
  switching: string;
  /** {@link huge}'s frames with 3 s of a tone (AAC): a recording sent as an audio input. */
  hugeWithSound: string;
  /** An MP3 (3 s of a tone) with a 16000 × 16000 greyscale PNG of zeros (256 megapixels, 250 KB) as cover art. */
  coverBomb: string;
}

/** Writes the {@link VideoBombs} into `dir` (a few seconds of x264 on two cores). */
export async function makeVideoBombs(dir: string): Promise<VideoBombs> {
  const at = (name: string) => join(dir, name);
  const grey = ['-f', 'lavfi', '-i', 'color=gray:s=8192x8192:r=10', '-frames:v', '3', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  await Promise.all([
    ffmpeg([...grey, '-f', 'h264', at('large.h264')]),
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=s=320x240:r=10', '-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-f', 'h264', at('small.h264')]),
    zeroPng(16000, 16000).then((png) => writeFile(at('cover.png'), png)),
  ]);
  await writeFile(at('switching.h264'), Buffer.concat([await readFile(at('small.h264')), await readFile(at('large.h264'))]));
  await Promise.all([
    ffmpeg(['-f', 'h264', '-r', '1', '-i', at('large.h264'), '-c', 'copy', at('huge.mp4')]),
    ffmpeg(['-f', 'h264', '-r', '10', '-i', at('switching.h264'), '-c', 'copy', at('switching.mkv')]),
    ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=220:duration=3', '-i', at('cover.png'), '-map', '0', '-map', '1', '-c:a', 'libmp3lame', '-c:v', 'copy', '-disposition:v', 'attached_pic', at('cover-bomb.mp3')]),
  ]);
  await ffmpeg(['-i', at('huge.mp4'), '-f', 'lavfi', '-i', 'sine=frequency=220:duration=3', '-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', at('huge-with-sound.mp4')]);
  return { huge: at('huge.mp4'), hugeWithSound: at('huge-with-sound.mp4'), switching: at('switching.mkv'), coverBomb: at('cover-bomb.mp3') };
}
