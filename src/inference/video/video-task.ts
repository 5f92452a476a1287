import type { PrepareVideoFaceOptions, PrepareProgress } from './prepare-video-face.js';
import type { RenderVideoAvatarOptions } from './render-video-avatar.js';

/** Work sent to the video avatar child (plain data: it crosses the process boundary). */
export type VideoTask =
  | ({ kind: 'prepare' } & Omit<PrepareVideoFaceOptions, 'signal' | 'onProgress'>)
  | ({ kind: 'render' } & Omit<RenderVideoAvatarOptions, 'signal' | 'onFrame' | 'onSource'>);

/** What the child tells while it works: the preparation's stages, or frames encoded. */
export type VideoTaskEvent = { kind: 'prepare'; progress: PrepareProgress } | { kind: 'render'; done: number };
