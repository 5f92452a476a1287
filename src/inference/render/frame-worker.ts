/**
 * Worker-thread entry of {@link FrameSource}. For each video it is given, it sets a
 * {@link FrameRenderer} up as soon as it is told the avatar (`prepare`), then, once told what to
 * draw, draws the frames in order, copies each into a free slot of the shared frame ring and tells
 * the parent which slot holds which frame. The parent hands a slot back once ffmpeg has its bytes.
 * Then it waits for the next video: a pooled worker skips the start-up (module loading) next time.
 */
import { parentPort } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FrameRenderer } from './frame-renderer.js';
import { RESTING_MOUTH } from '../lipsync/mouth.js';
import type { FromFrameWorker, ToFrameWorker } from './frame-worker-protocol.js';

type Prepare = Extract<ToFrameWorker, { type: 'prepare' }>;
type Draw = Extract<ToFrameWorker, { type: 'draw' }>;

const port = parentPort;
if (!port) throw new Error('frame-worker runs as a worker thread only');
let prepare: Prepare | undefined;
let draw: Draw | undefined;
let free: number[] = [];
let wake: (() => void) | undefined;
port.on('message', (message: ToFrameWorker) => {
  if (message.type === 'prepare') {
    prepare = message;
    draw = undefined;
    free = Array.from({ length: message.slots }, (_, slot) => slot);
  } else if (message.job !== prepare?.job) {
    return; // about a video this worker no longer draws
  } else if (message.type === 'draw') {
    draw = message;
  } else {
    free.push(message.slot);
  }
  const w = wake;
  wake = undefined;
  w?.();
});
const until = async (ready: () => boolean) => {
  while (!ready()) await new Promise<void>((resolve) => (wake = resolve));
};
const post = (message: FromFrameWorker) => port.postMessage(message);

for (;;) {
  await until(() => prepare !== undefined);
  const video = prepare!;
  try {
    const renderer = await FrameRenderer.create(video.definition, { backgroundPath: video.backgroundPath });
    const frameBytes = renderer.width * renderer.height * 4;
    post({ type: 'ready', job: video.job });
    await until(() => draw !== undefined && draw.job === video.job);
    const { mouths, total } = draw!;
    for (let index = 0; index < total; index++) {
      await until(() => free.length > 0);
      const slot = free.shift()!;
      renderer.renderInto(index, mouths[index] ?? RESTING_MOUTH, new Uint8Array(video.ring, slot * frameBytes, frameBytes));
      post({ type: 'frame', job: video.job, index, slot });
      // One turn of the event loop per frame: slots handed back are seen, and the finalizers of the
      // canvas's per-frame buffers (the face's pixels) run, so their memory is reused.
      await nextTurn();
    }
    post({ type: 'done', job: video.job });
  } catch (error) {
    post({ type: 'error', job: video.job, message: error instanceof Error ? error.message : String(error) });
  }
  if (prepare === video) {
    prepare = undefined;
    draw = undefined;
  }
}
