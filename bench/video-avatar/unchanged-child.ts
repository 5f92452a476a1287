/**
 * Child process of the video-avatar bench: the encoder's limit of a job, the prepared clip's frames decoded and encoded
 * unchanged (looped to the job's frame count, with the sound, the job's encoder settings), at the priority the
 * engines' children run at (nice 10: see bench/lib/engine-priority-child.ts), as the job's video child does its work.
 */
import { openVideoEncoder } from '../../src/inference/media/encode-video.js';
import { resolveMediaBinaries } from '../../src/inference/media/index.js';
import { decodeClip } from '../../src/inference/video/decode-clip.js';
import { VIDEO_AVATAR_ENCODER } from '../../src/inference/video/video-encoder.js';
import { serveAtEnginePriority } from '../lib/engine-priority-child.js';

/** What the child is asked: encode `frames` frames of `clipPath` (`width × height`, `fps`) with `audioPath` into `outputPath`. */
export interface UnchangedRequest {
  clipPath: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  audioPath: string;
  audioMaxSec: number;
  outputPath: string;
}

const binaries = await resolveMediaBinaries();
serveAtEnginePriority<UnchangedRequest>(async ({ clipPath, width, height, fps, frames, audioPath, audioMaxSec, outputPath }) => {
  const geometry = { width, height, fps };
  const encoder = openVideoEncoder({ ...VIDEO_AVATAR_ENCODER, ...geometry, pixelFormat: 'yuv420p', audioPath, audioMaxSec, outputPath }, binaries);
  let done = 0;
  while (done < frames) {
    for await (const frame of decodeClip(clipPath, { geometry, normalised: true, maxFrames: frames - done }, binaries)) {
      await encoder.write(frame.pixels, frame.release);
      done++;
    }
  }
  await encoder.finish();
});
