/**
 * Child process of the lip-sync bench: encodes the still image of the encoder's limit at the priority the engines'
 * children run at (nice 10, see background-priority.ts), so that the job and its baseline get the same share of a
 * machine that other work loads (at nice 0 the still image's ffmpeg outweighed the job's by 1024 to 110 against
 * that work). `prepare` draws the still (not measured: the first one draws the avatar's layers), `encode` encodes
 * it as many times as asked and answers when the mp4 is complete; see still-encoder.ts.
 */
import { serveAtEnginePriority } from '../lib/engine-priority-child.js';
import { resolveMediaBinaries } from '../../src/inference/media/index.js';
import { openVideoEncoder } from '../../src/inference/media/encode-video.js';
import { rawFrameBytes } from '../../src/inference/media/raw-video.js';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { RESTING_MOUTH } from '../../src/inference/lipsync/mouth.js';
import type { StillRequest } from './still-encoder.js';

const binaries = await resolveMediaBinaries();
let still: Uint8Array | undefined;

serveAtEnginePriority<StillRequest>(async (request) => {
  if (request.type === 'prepare') {
    const { avatar, width, height, format } = request;
    still = new Uint8Array(rawFrameBytes(format, width, height));
    new FrameRenderer({ ...avatar, width, height }).renderFormatInto(format, 0, RESTING_MOUTH, still);
  } else {
    const { width, height, format, fps, frames, audioPath, audioMaxSec, outputPath } = request;
    const encoder = openVideoEncoder({ width, height, fps, pixelFormat: format, audioPath, audioMaxSec, outputPath }, binaries);
    for (let i = 0; i < frames; i++) await encoder.write(still!);
    await encoder.finish();
  }
});
