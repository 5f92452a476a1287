import type { AvatarDefinition } from '../avatar/definition.js';
import type { MouthShape } from '../lipsync/mouth.js';

/**
 * Parent → worker. A worker serves one video at a time and then waits for the next: `prepare`
 * sets the renderer up (while the audio is still being analysed), `draw` starts drawing, `release`
 * hands a slot of the shared frame ring back. Every message names its video (`job`); a worker
 * ignores releases of a video it no longer draws.
 */
export type ToFrameWorker =
  | {
      type: 'prepare';
      job: number;
      definition: AvatarDefinition;
      backgroundPath?: string;
      /** `slots` frames of `width × height × 4` bytes, shared with the parent. */
      ring: SharedArrayBuffer;
      slots: number;
    }
  | { type: 'draw'; job: number; mouths: readonly MouthShape[]; total: number }
  | { type: 'release'; job: number; slot: number };

/** Worker → parent, about video `job`. */
export type FromFrameWorker =
  | { type: 'ready'; job: number }
  | { type: 'frame'; job: number; index: number; slot: number }
  | { type: 'done'; job: number }
  | { type: 'error'; job: number; message: string };
