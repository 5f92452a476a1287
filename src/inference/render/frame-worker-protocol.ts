import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { MouthShape } from '../lipsync/mouth.js';
import type { MediaBinaries } from '../media/binaries.js';
import type { VideoEncodeOptions } from '../media/encode-video.js';
import type { ChildFatal } from '../workers/serve-child.js';
import type { SerializedError } from '../workers/task-protocol.js';

/** The mp4 a worker writes its frames into itself (see `FrameSourceOptions.encoder`). */
export interface FrameEncoderSetup {
  /** Everything but the signal: the worker aborts its encoder when told to `stop`. */
  options: Omit<VideoEncodeOptions, 'signal'>;
  binaries: MediaBinaries;
}

/**
 * Parent → frame child. A child serves one video at a time and then waits for the next: `prepare`
 * sets the renderer up (while the audio is still being analysed), `draw` starts drawing, `release`
 * says the parent is done with a frame it was sent, so the child may draw into that slot again.
 * Every message names its video (`job`); a child ignores releases of a video it no longer draws.
 * With an `encoder`, the child starts ffmpeg at `prepare` and writes each frame into it itself (no
 * `frame`/`release` messages, no pixels cross the channel; `encoded` reports progress, a few times a second); `stop`
 * aborts that video (ffmpeg is killed, the partial file removed) and is answered with `error`.
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
      /** Frames drawn ahead of the parent (or of ffmpeg's pipe): at most this many are held at once. */
      slots: number;
      encoder?: FrameEncoderSetup;
    }
  | { type: 'draw'; job: number; mouths: readonly MouthShape[]; total: number }
  | { type: 'release'; job: number; slot: number }
  | { type: 'stop'; job: number };

/** Frame child → parent, about video `job` (or, before it exits on an uncaught error, {@link ChildFatal}). */
export type FromFrameWorker =
  | { type: 'ready'; job: number }
  /** Frame `index`'s pixels (in the encoder's `pixelFormat`, else RGBA), drawn in `slot`. */
  | { type: 'frame'; job: number; index: number; slot: number; pixels: Uint8Array }
  /** Frames `0 … index` are in the encoder (encoder mode only; sent at most every 100 ms, and for the last frame). */
  | { type: 'encoded'; job: number; index: number }
  | { type: 'done'; job: number }
  /** `error` is the failure itself, with its name and code (e.g. a `MediaProcessError` of ffmpeg). */
  | { type: 'error'; job: number; message: string; error: SerializedError }
  | ChildFatal;
