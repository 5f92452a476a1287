import type { PrepareVideoFaceOptions, PrepareProgress } from './prepare-video-face.js';
import type { RenderVideoAvatarSettings, VideoMouthTrack } from './render-video-avatar.js';

/** Work sent to the video avatar child (plain data: it crosses the process boundary). */
export type VideoTask =
  | ({ kind: 'prepare' } & Omit<PrepareVideoFaceOptions, 'signal' | 'onProgress'>)
  | ({ kind: 'render' } & Omit<RenderVideoAvatarSettings, 'signal' | 'onFrame' | 'onSource'> & (VideoMouthTrack | { track: 'input' }));

/** What a render task told `{ track: 'input' }` is sent once the speech's analysis has it (the task's input). */
export type VideoTaskInput = VideoMouthTrack;

/** What the child tells while it works: the preparation's stages, or frames encoded. */
export type VideoTaskEvent = { kind: 'prepare'; progress: PrepareProgress } | { kind: 'render'; done: number };
