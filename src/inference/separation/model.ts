/**
 * The speech mask net (models/separation/separator.onnx, trained by training/separation/): STFT magnitudes
 * `mag [1, T, 257]` of the 16 kHz mixture in, `mask [1, T, 257]` in (0, 1) out. Non-causal convolutions with a
 * receptive field of ±{@link MODEL_CONTEXT} frames: a chunk run with that much context on each side gives exactly the
 * masks a whole-file run would.
 */
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { BINS } from './stft.js';

/** The model shipped with the package (resolved from this file, in src/ and in dist/ alike). */
export const DEFAULT_SEPARATION_MODEL: URL = new URL('../../../models/separation/separator.onnx', import.meta.url);

/** Frames of context each side that make chunked inference exact (the net's receptive half-width is 63). */
export const MODEL_CONTEXT = 64;

/** Options of {@link SeparationModel.load}. */
export interface SeparationModelOptions {
  /** Threads for one inference (default 1: a good neighbour on a shared machine). */
  intraOpNumThreads?: number;
  /** onnxruntime execution providers, in order of preference (default `['cpu']`). */
  executionProviders?: string[];
}

export class SeparationModel {
  private constructor(
    private readonly session: ort.InferenceSession,
    /** The execution providers the session was created with. */
    readonly executionProviders: readonly string[],
  ) {}

  private static readonly cache = new Map<string, Promise<SeparationModel>>();

  /** Loads (once per path, threads and providers, per process) the ONNX model. */
  static load(model: string | URL = DEFAULT_SEPARATION_MODEL, options: SeparationModelOptions = {}): Promise<SeparationModel> {
    const path = model instanceof URL ? fileURLToPath(model) : model;
    const providers = options.executionProviders ?? ['cpu'];
    const threads = options.intraOpNumThreads ?? 1;
    const key = `${path}|${threads}|${providers.join(',')}`;
    let loaded = SeparationModel.cache.get(key);
    if (!loaded) {
      loaded = ort.InferenceSession.create(path, {
        intraOpNumThreads: threads,
        interOpNumThreads: 1,
        executionProviders: providers,
        graphOptimizationLevel: 'all',
      }).then((s) => new SeparationModel(s, providers));
      loaded.catch(() => SeparationModel.cache.delete(key));
      SeparationModel.cache.set(key, loaded);
    }
    return loaded;
  }

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /** One run over `frames` rows of magnitudes (`frames * 257` values); returns `frames * 257` mask values. */
  async mask(mag: Float32Array, frames: number): Promise<Float32Array> {
    if (mag.length !== frames * BINS) throw new Error(`magnitudes: expected ${frames}x${BINS} values, got ${mag.length}`);
    if (frames === 0) return new Float32Array(0);
    const input = new ort.Tensor('float32', mag, [1, frames, BINS]);
    const result = await this.session.run({ mag: input });
    const out = result.mask;
    try {
      return new Float32Array(out.data as Float32Array);
    } finally {
      out.dispose?.();
      input.dispose?.();
    }
  }
}
