/**
 * The video avatars' entry points for the rest of the package: preparing a clip ({@link prepareVideoAvatar}) and
 * rendering a job's video ({@link renderVideoAvatarJob}), each in a pooled child process (video-worker.ts) unless
 * told otherwise; the host's event loop only passes messages.
 */
import type { VideoAvatarPreparer } from '../../domain/engines.js';
import { resolveEncoderBinaries, type EncoderBinaries } from '../media/encode-video.js';
import { inChildProcess } from '../workers/child.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';
import { asVideoAvatarError } from './errors.js';
import type { PreparedVideoFace, PrepareVideoFaceOptions } from './prepare-video-face.js';
import type { RenderVideoAvatarSettings, VideoMouthTrackSource } from './render-video-avatar.js';
import type { VideoTask, VideoTaskEvent, VideoTaskInput } from './video-task.js';

/** Where the work runs: a pooled child process (default) or the calling thread. */
export type VideoThread = 'worker' | 'main';

let pool: TaskPool<VideoTask, PreparedVideoFace | undefined, VideoTaskEvent, VideoTaskInput> | undefined;
const VIDEO_WORKER = childModule(import.meta.url, 'video-worker');

function videoPool(thread: VideoThread | undefined): typeof pool {
  if ((thread ?? 'worker') === 'main' || !VIDEO_WORKER || inChildProcess()) return undefined;
  // Each child holds the face model (tracking) or a job's frames; a preparation of a long clip takes minutes.
  return (pool ??= new TaskPool({ name: 'video avatar', module: VIDEO_WORKER, maxOldGenerationSizeMb: 1024 }));
}

/** Video avatar children started and not ended (for tests and diagnostics). */
export function videoAvatarWorkers(): number {
  return pool?.size ?? 0;
}

/**
 * Options of {@link prepareVideoAvatar}: those of `prepareVideoFace` (the clip, the output folder, the limits: 3 s to
 * 300 s, the face missing in at most a tenth; the prepared clip's encoder), the binaries found when not given, and
 * where it runs.
 */
export type PrepareVideoAvatarOptions = Omit<PrepareVideoFaceOptions, 'binaries'> & { binaries?: EncoderBinaries; thread?: VideoThread };

/**
 * Prepares a clip as a video avatar (see prepare-video-face.ts) and resolves with what it wrote.
 * @throws VideoAvatarError (its `code` one of `not_video`, `too_short`, `too_long`, `no_face`, `face_too_small`,
 *   `face_lost`) when the clip cannot be one; any other error is a failure of the machine, not of the clip.
 */
export async function prepareVideoAvatar(options: PrepareVideoAvatarOptions): Promise<PreparedVideoFace> {
  const { thread, signal, onProgress, binaries: given, ...rest } = options;
  const binaries = await resolveEncoderBinaries(given);
  const workers = videoPool(thread);
  try {
    if (!workers) {
      const { prepareVideoFace } = await import('./prepare-video-face.js');
      return await prepareVideoFace({ ...rest, binaries, signal, onProgress });
    }
    const result = await workers.run(
      { kind: 'prepare', ...rest, binaries },
      { signal, onEvent: (event) => (event.kind === 'prepare' ? onProgress?.(event.progress) : undefined) },
    );
    return result!;
  } catch (error) {
    throw asVideoAvatarError(error) ?? error;
  }
}

/** Options of {@link renderVideoAvatarJob}: those of `renderVideoAvatar`, the binaries found when not given, and where it runs. */
export type RenderVideoAvatarJobOptions = Omit<RenderVideoAvatarSettings, 'binaries' | 'onSource'> &
  VideoMouthTrackSource & { binaries?: EncoderBinaries; thread?: VideoThread };

/**
 * Renders a job's mp4 with a video avatar (see render-video-avatar.ts). Given the mouth track as `{ track }` (a
 * promise), the child starts the encoder and the decoder and reads the face while the track is computed; the track
 * is sent to it once known.
 */
export async function renderVideoAvatarJob(options: RenderVideoAvatarJobOptions): Promise<void> {
  const { thread, signal, onFrame, binaries: given, ...rest } = options;
  const binaries = await resolveEncoderBinaries(given);
  const workers = videoPool(thread);
  if (!workers) {
    const { renderVideoAvatar } = await import('./render-video-avatar.js');
    return renderVideoAvatar({ ...rest, binaries, signal, onFrame });
  }
  const onEvent = (event: VideoTaskEvent) => (event.kind === 'render' ? onFrame?.(event.done) : undefined);
  if ('track' in rest) {
    const { track, ...settings } = rest;
    await workers.run({ kind: 'render', ...settings, binaries, track: 'input' }, { signal, onEvent, input: track });
  } else await workers.run({ kind: 'render', ...rest, binaries }, { signal, onEvent });
}

/**
 * The built-in {@link VideoAvatarPreparer}: {@link prepareVideoAvatar} in the video avatar child, its progress as
 * frames of the current pass (tracking, cutting, rendering).
 */
export function createVideoAvatarPreparer(options: { binaries?: EncoderBinaries; encoder?: PrepareVideoAvatarOptions['encoder'] } = {}): VideoAvatarPreparer {
  return {
    async prepare(clipPath, outputDir, { signal, onProgress, minSeconds, maxSeconds }) {
      const prepared = await prepareVideoAvatar({
        clipPath,
        outputDir,
        binaries: options.binaries,
        encoder: options.encoder,
        minSeconds,
        maxSeconds,
        signal,
        onProgress: (p) => onProgress?.(p.done, p.total),
      });
      return { face: prepared.face, previewPath: prepared.previewPath, thumbnailPath: prepared.thumbnailPath };
    },
  };
}
