import type { AvatarDefinition } from '../avatar/definition.js';
import type { MouthShape } from '../lipsync/mouth.js';

/** What the frame worker is started with: it sets its renderer up at once. */
export interface FrameWorkerData {
  definition: AvatarDefinition;
  backgroundPath?: string;
  /** `slots` frames of `width × height × 4` bytes, shared with the parent. */
  ring: SharedArrayBuffer;
  slots: number;
}

/** Parent → worker: what to draw (sent once), then slots that may be drawn into again. */
export type ToFrameWorker =
  | { type: 'draw'; mouths: readonly MouthShape[]; total: number }
  | { type: 'release'; slot: number };

/** Worker → parent. */
export type FromFrameWorker =
  | { type: 'frame'; index: number; slot: number }
  | { type: 'done' }
  | { type: 'error'; message: string };
