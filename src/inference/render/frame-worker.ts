/**
 * Worker-thread entry of {@link FrameSource}: sets a {@link FrameRenderer} up as soon as it starts,
 * then, once told what to draw, draws the frames in order, copies each into a free slot of the
 * shared frame ring and tells the parent which slot holds which frame. The parent hands a slot
 * back once ffmpeg has its bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { FrameRenderer } from './frame-renderer.js';
import { RESTING_MOUTH } from '../lipsync/mouth.js';
import type { FrameWorkerData, FromFrameWorker, ToFrameWorker } from './frame-worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('frame-worker runs as a worker thread only');
const data = workerData as FrameWorkerData;
const free: number[] = Array.from({ length: data.slots }, (_, slot) => slot);
let job: Extract<ToFrameWorker, { type: 'draw' }> | undefined;
let wake: (() => void) | undefined;
port.on('message', (message: ToFrameWorker) => {
  if (message.type === 'draw') job = message;
  else free.push(message.slot);
  const w = wake;
  wake = undefined;
  w?.();
});
const until = async (ready: () => boolean) => {
  while (!ready()) await new Promise<void>((resolve) => (wake = resolve));
};
const post = (message: FromFrameWorker) => port.postMessage(message);

try {
  const renderer = await FrameRenderer.create(data.definition, { backgroundPath: data.backgroundPath });
  const frameBytes = renderer.width * renderer.height * 4;
  await until(() => job !== undefined);
  const { mouths, total } = job!;
  for (let index = 0; index < total; index++) {
    await until(() => free.length > 0);
    const slot = free.shift()!;
    new Uint8Array(data.ring, slot * frameBytes, frameBytes).set(renderer.render(index, mouths[index] ?? RESTING_MOUTH));
    post({ type: 'frame', index, slot });
    // One turn of the event loop per frame: slots handed back are seen, and the finalizers of the
    // canvas's per-frame buffers run, so their memory is reused instead of piling up.
    await nextTurn();
  }
  post({ type: 'done' });
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
port.close();
