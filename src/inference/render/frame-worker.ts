/**
 * Child-process entry of {@link FrameSource}. For each video it is given, it sets a frame drawer
 * (the drawn avatar's or a photo avatar's) up as soon as it is told the avatar (`prepare`), then,
 * once told what to draw, draws the frames in order into a small ring of slots and sends each to
 * the parent, which hands the slot back once it has consumed the frame.
 * With an encoder (`prepare.encoder`), the child has ffmpeg started at `prepare` (by its media spawner, a small
 * process of its own: see media-spawner.ts) and writes each slot into it, reusing the slot once ffmpeg's pipe holds
 * it: the spawn and every frame's bytes stay out of the host's process, which only hears the progress.
 * Then it waits for the next video: a pooled child skips the start-up (module loading) next time.
 * Canvas drawing and image decoding are native code: in a child, a crash there ends the child only.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createFrameDrawer, drawFrameInto, type FrameDrawer } from './frame-drawer.js';
import { RESTING_MOUTH } from '../lipsync/mouth.js';
import { openVideoEncoder, type VideoEncoder } from '../media/encode-video.js';
import { MediaSpawner } from '../media/media-spawner.js';
import { rawFrameBytes } from '../media/raw-video.js';
import type { FromFrameWorker, ToFrameWorker } from './frame-worker-protocol.js';
import { serializeError } from '../workers/task-protocol.js';
import { serveChild } from '../workers/serve-child.js';

/** Least time between two `encoded` reports (the engine reports progress at most every 250 ms). */
const ENCODED_REPORT_MS = 100;

type Prepare = Extract<ToFrameWorker, { type: 'prepare' }>;
type Draw = Extract<ToFrameWorker, { type: 'draw' }>;

const port = serveChild<ToFrameWorker, FromFrameWorker>();
// ffmpeg is started from a small process of this child's own, forked now, while this child is small (see
// media-spawner.ts): spawning it from here would fork this child, canvases and frame ring included, at every video.
const spawner = new MediaSpawner();
spawner.start();
let prepare: Prepare | undefined;
let draw: Draw | undefined;
let free: number[] = [];
/**
 * The ring of slots the frames are drawn into, made at the first frame that needs a slot (a drawn avatar's frames for
 * ffmpeg need none, see below) and kept from one video to the next (grown when a video needs more): its pages are then
 * touched once per child, not once per video.
 */
let ring: ArrayBuffer | undefined;
/** Aborted when the parent stops the current video. */
let stop = new AbortController();
let wake: (() => void) | undefined;
const notify = () => {
  const w = wake;
  wake = undefined;
  w?.();
};
port.onMessage((message) => {
  if (message.type === 'prepare') {
    prepare = message;
    draw = undefined;
    free = Array.from({ length: message.slots }, (_, slot) => slot);
    stop = new AbortController();
  } else if (message.job !== prepare?.job) {
    return; // about a video this worker no longer draws
  } else if (message.type === 'draw') {
    draw = message;
  } else if (message.type === 'stop') {
    stop.abort(new Error('the video was stopped'));
  } else {
    free.push(message.slot);
  }
  notify();
});
/** Waits until `ready()`; throws once the video is stopped. */
const until = async (ready: () => boolean, signal: AbortSignal) => {
  for (;;) {
    signal.throwIfAborted();
    if (ready()) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
};
const post = (message: FromFrameWorker) => port.post(message);

for (;;) {
  await until(() => prepare !== undefined, new AbortController().signal);
  const video = prepare!;
  const { signal } = stop;
  let encoder: VideoEncoder | undefined;
  let renderer: FrameDrawer | undefined;
  try {
    // ffmpeg starts (and opens the audio) while the renderer is set up and the parent analyses the audio.
    if (video.encoder) encoder = openVideoEncoder({ ...video.encoder.options, signal }, video.encoder.binaries, spawner);
    renderer = await createFrameDrawer(video);
    const format = video.encoder?.options.pixelFormat ?? 'rgba';
    const frameBytes = rawFrameBytes(format, renderer.width, renderer.height);
    post({ type: 'ready', job: video.job });
    await until(() => draw !== undefined && draw.job === video.job, signal);
    const { mouths, total } = draw!;
    const reportEncoded = encodedReporter(video.job, total);
    for (let index = 0; index < total; index++) {
      const mouth = mouths[index] ?? RESTING_MOUTH;
      // For ffmpeg, a drawer that keeps the frame in memory of its own has it written from there and draws the next
      // one once ffmpeg's pipe holds it: no copy into a slot, at the cost of no frames queued here (ffmpeg reads a
      // job's inputs on threads of its own, which queue frames, and x264 holds a dozen for its lookahead).
      const own = encoder && renderer.drawFormat?.(format, index, mouth);
      if (encoder && own) {
        await writeWhole(encoder, own, signal);
        reportEncoded(index);
        continue;
      }
      await until(() => free.length > 0, signal);
      const slot = free.shift()!;
      if (!ring || ring.byteLength < frameBytes * video.slots) ring = new ArrayBuffer(frameBytes * video.slots);
      const pixels = new Uint8Array(ring, slot * frameBytes, frameBytes);
      drawFrameInto(renderer, format, index, mouth, pixels);
      if (encoder) {
        await encoder.write(pixels, () => {
          free.push(slot);
          notify();
        });
        reportEncoded(index);
      } else {
        post({ type: 'frame', job: video.job, index, slot, pixels });
        // One turn of the event loop per frame: slots handed back are seen, and the finalizers of the
        // canvas's per-frame buffers (the face's pixels) run, so their memory is reused. (With an encoder,
        // its write has already taken that turn, or waited for ffmpeg's pipe.)
        await nextTurn();
      }
    }
    await encoder?.finish();
    post({ type: 'done', job: video.job });
  } catch (error) {
    await encoder?.abort();
    post({ type: 'error', job: video.job, message: error instanceof Error ? error.message : String(error), error: serializeError(error) });
  }
  // Its memory goes back to the pool for the next video of this size.
  renderer?.close?.();
  if (prepare === video) {
    prepare = undefined;
    draw = undefined;
  }
}

/**
 * Reports frames handed to ffmpeg for a video of `total` frames: `encoded` counts every frame before it too, so one
 * message now and then (every {@link ENCODED_REPORT_MS}, and the last frame) says as much as one per frame did, for a
 * fraction of the messages the parent (the host's event loop) has to take.
 */
function encodedReporter(job: Draw['job'], total: number): (index: number) => void {
  let reportedAt = Number.NEGATIVE_INFINITY;
  return (index) => {
    const now = performance.now();
    if (now - reportedAt < ENCODED_REPORT_MS && index !== total - 1) return;
    reportedAt = now;
    post({ type: 'encoded', job, index });
  };
}

/**
 * Writes `frame` into `encoder` and resolves once ffmpeg's pipe holds all of it (or the write failed: the next write
 * reports why), so that the caller may draw over it; rejects when `signal` aborts first.
 */
async function writeWhole(encoder: VideoEncoder, frame: Uint8Array, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  let stopped: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      stopped = () => reject(signal.reason);
      signal.addEventListener('abort', stopped, { once: true });
      encoder.write(frame, resolve).catch(reject);
    });
  } finally {
    if (stopped) signal.removeEventListener('abort', stopped);
  }
}
