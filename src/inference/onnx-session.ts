import { fileURLToPath } from 'node:url';
import { ort, type InferenceSession } from './ort.js';

/** How an ONNX session is created. */
export interface OnnxSessionOptions {
  /** onnxruntime threads per inference (default 1, to stay a good neighbour of the web server). */
  intraOpNumThreads?: number;
  /** Execution providers in order of preference (default `['cpu']`). */
  executionProviders?: string[];
}

const sessions = new Map<string, Promise<InferenceSession>>();

/** Loads an ONNX model once per (path, threads, providers) and process; a failed load is retried next time. */
export function loadOnnxSession(model: string | URL, options: OnnxSessionOptions = {}): Promise<InferenceSession> {
  const path = model instanceof URL ? fileURLToPath(model) : model;
  const providers = options.executionProviders ?? ['cpu'];
  const threads = options.intraOpNumThreads ?? 1;
  const key = `${path}|${threads}|${providers.join(',')}`;
  let loaded = sessions.get(key);
  if (!loaded) {
    loaded = ort().InferenceSession.create(path, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionProviders: providers,
      graphOptimizationLevel: 'all',
    });
    loaded.catch(() => sessions.delete(key));
    sessions.set(key, loaded);
  }
  return loaded;
}

/**
 * Runs a model with one `[1, frames, width]` float32 input and returns its one float32 output as a fresh array
 * (`frames * outputWidth` values). The tensors live on the CPU and are freed by the garbage collector.
 */
export async function runFrames(
  session: InferenceSession,
  names: { input: string; output: string },
  data: Float32Array,
  frames: number,
  width: number,
): Promise<Float32Array> {
  if (data.length !== frames * width) throw new Error(`${names.input}: expected ${frames}x${width} values, got ${data.length}`);
  if (frames === 0) return new Float32Array(0);
  const input = new (ort().Tensor)('float32', data, [1, frames, width]);
  const result = await session.run({ [names.input]: input });
  return new Float32Array(result[names.output]!.data as Float32Array);
}
