/**
 * Worker-thread entry of {@link SeparationModelThread}: loads the separation models it is asked for on this thread
 * and runs them for each request, in order, so that the thread that asks (the separation child's main thread)
 * computes the STFTs and syntheses meanwhile instead of waiting for each run.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError } from '../workers/task-protocol.js';
import { SeparationModel } from './model.js';
import type { FromModelThread, ToModelThread } from './model-thread.js';

const port = parentPort!;
const post = (message: FromModelThread, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
/**
 * The model last asked for under each key (SeparationModel.load itself keeps one session per file and options, and
 * tries a failed load again).
 */
const models = new Map<string, Promise<SeparationModel>>();
/** Where each run writes its masks (grown to the largest run): no memory of onnxruntime's per run. */
let out = new Float32Array(0);

port.on('message', (message: ToModelThread) => {
  if (message.type === 'load') {
    const { key, model, options } = message;
    const loaded = SeparationModel.load(model, options);
    models.set(key, loaded);
    loaded.then(
      (separation) => post({ type: 'loaded', key, executionProviders: [...separation.executionProviders] }),
      (error: unknown) => post({ type: 'failed', key, error: serializeError(error) }),
    );
    return;
  }
  const { id, key, mag, frames } = message;
  const loaded = models.get(key) ?? Promise.reject(new Error(`no separation model loaded as ${key}`));
  loaded
    .then(async (separation) => {
      if (out.length < mag.length) out = new Float32Array(mag.length);
      const masks = out.subarray(0, mag.length);
      await separation.maskInto(mag, frames, masks);
      // The answer goes back in the request's own memory (transferred): a run allocates nothing on this thread.
      mag.set(masks);
      post({ type: 'mask', id, mask: mag }, [mag.buffer as ArrayBuffer]);
    })
    .catch((error: unknown) => post({ type: 'failed', id, error: serializeError(error) }));
});
