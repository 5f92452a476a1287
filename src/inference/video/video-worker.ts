/**
 * Child-process entry of the video avatars: prepares clips (face tracking with the face model, atlas, the prepared
 * clip's encoding) and renders jobs' videos (decoding, drawing, encoding), one task at a time, off the host's
 * process (native code: the model's WASM runtime, the canvas, ffmpeg's pipes).
 */
import { serveTasks } from '../workers/serve-tasks.js';
import { prepareVideoFace, type PreparedVideoFace } from './prepare-video-face.js';
import { renderVideoAvatar } from './render-video-avatar.js';
import type { VideoTask, VideoTaskEvent } from './video-task.js';

serveTasks<VideoTask, PreparedVideoFace | undefined, VideoTaskEvent>(async (task, { signal, emit }) => {
  if (task.kind === 'prepare') {
    const { kind: _kind, ...options } = task;
    return prepareVideoFace({ ...options, signal, onProgress: (progress) => emit({ kind: 'prepare', progress }) });
  }
  let last = 0;
  await renderVideoAvatar({
    ...task,
    signal,
    onFrame: (done) => {
      // At most a report every few frames: each crosses the process boundary.
      if (done - last >= 10 || done === task.total) {
        last = done;
        emit({ kind: 'render', done });
      }
    },
  });
  return undefined;
});
