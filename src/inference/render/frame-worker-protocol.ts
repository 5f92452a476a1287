import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { MouthShape } from '../lipsync/mouth.js';
import type { MediaBinaries } from '../media/binaries.js';
import type { VideoEncodeOptions } from '../media/encode-video.js';
import type { SerializedError } from '../workers/task-protocol.js';

/** The mp4 a worker writes its frames into itself (see `FrameSourceOptions.encoder`). */
export interface FrameEncoderSetup {
  /** Everything but the signal: the worker aborts its encoder when told to `stop`. */
  options: Omit<VideoEncodeOptions, 'signal'>;
  binaries: MediaBinaries;
}

/**
 * Parent → worker. A worker serves one video at a time and then waits for the next: `prepare`
 * sets the renderer up (while the audio is still being analysed), `draw` starts drawing, `release`
 * hands a slot of the shared frame ring back. Every message names its video (`job`); a worker
 * ignores releases of a video it no longer draws. With an `encoder`, the worker starts ffmpeg at
 * `prepare` and writes each frame into it itself (no `frame`/`release` messages; `encoded` reports
 * progress); `stop` aborts that video (ffmpeg is killed, the partial file removed) and is answered
 * with `error`.
 */
export type ToFrameWorker =
  | {
      type: 'prepare';
      job: number;
      definition: AvatarDefinition;
      backgroundPath?: string;
      /** A photo avatar's portrait (see `FrameSourceOptions.photo`). */
      photo?: PhotoFace;
      loopFrames?: number;
      /** `slots` frames (`width × height × 4` bytes, or the encoder's `pixelFormat`), shared with the parent. */
      ring: SharedArrayBuffer;
      slots: number;
      encoder?: FrameEncoderSetup;
    }
  | { type: 'draw'; job: number; mouths: readonly MouthShape[]; total: number }
  | { type: 'release'; job: number; slot: number }
  | { type: 'stop'; job: number };

/** Worker → parent, about video `job`. */
export type FromFrameWorker =
  | { type: 'ready'; job: number }
  | { type: 'frame'; job: number; index: number; slot: number }
  /** Frames `0 … index` are in the encoder (encoder mode only). */
  | { type: 'encoded'; job: number; index: number }
  | { type: 'done'; job: number }
  /** `error` is the failure itself, with its name and code (e.g. a `MediaProcessError` of ffmpeg). */
  | { type: 'error'; job: number; message: string; error: SerializedError };
