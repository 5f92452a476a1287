/**
 * Child-process entry of the video avatars: prepares clips (face tracking with the face model, atlas, the prepared
 * clip's encoding) and renders jobs' videos (decoding, drawing, encoding), one task at a time, off the host's
 * process (native code: the model's WASM runtime, the canvas, ffmpeg's pipes).
 */
import { MediaSpawner } from '../media/media-spawner.js';
import { serveTasks } from '../workers/serve-tasks.js';
import { prepareVideoFace, type PreparedVideoFace } from './prepare-video-face.js';
import { renderVideoAvatar } from './render-video-avatar.js';
import type { VideoTask, VideoTaskEvent, VideoTaskInput } from './video-task.js';

// A job's ffmpeg processes (each pass's decoder, the encoder) are started from a small process of this child's own,
// forked now while this child is small: spawning them from here would fork this child (its decoded frames, canvases,
// heap) for each, and make every page it writes afterwards fault once more (see media-spawner.ts).
const spawner = new MediaSpawner();
spawner.start();

serveTasks<VideoTask, PreparedVideoFace | undefined, VideoTaskEvent, VideoTaskInput>(async (task, { signal, emit, input }) => {
  if (task.kind === 'prepare') {
    const { kind: _kind, ...options } = task;
    return prepareVideoFace({ ...options, signal, onProgress: (progress) => emit({ kind: 'prepare', progress }) });
  }
  const { kind: _kind, ...settings } = task;
  // The mouth track sent after the task (the speech's analysis ran meanwhile), or the one in it.
  let total = 'track' in settings ? Number.POSITIVE_INFINITY : settings.total;
  const track = 'track' in settings ? { track: input.then((known) => ((total = known.total), known)) } : settings;
  let last = 0;
  const onFrame = (done: number) => {
    // At most a report every few frames: each crosses the process boundary.
    if (done - last >= 10 || done === total) {
      last = done;
      emit({ kind: 'render', done });
    }
  };
  await renderVideoAvatar({ ...settings, ...track, signal, onFrame }, spawner);
  return undefined;
});
