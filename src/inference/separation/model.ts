/**
 * The speech mask net (models/separation/separator.onnx, trained by training/separation/): STFT magnitudes
 * `mag [1, T, 257]` of the 16 kHz mixture in, `mask [1, T, 257]` in (0, 1) out. Non-causal convolutions with a
 * receptive field of ±{@link MODEL_CONTEXT} frames: a chunk run with that much context on each side gives exactly the
 * masks a whole-file run would.
 */
import { ort, type InferenceSession } from '../ort.js';
import { loadOnnxSession, runFrames } from '../onnx-session.js';
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

/**
 * Where the masks come from: the model on the calling thread ({@link SeparationModel}) or on a thread of its own
 * (SeparationModelThread, model-thread.ts).
 */
export interface MaskModel {
  /** The execution providers the model's session was created with. */
  readonly executionProviders: readonly string[];
  /** One run over `frames` rows of magnitudes (`frames * 257` values); resolves to `frames * 257` mask values. */
  mask(mag: Float32Array, frames: number): Promise<Float32Array>;
}

/** The model on the thread that loads it: each run blocks that thread while it lasts (onnxruntime-node 1.16). */
export class SeparationModel implements MaskModel {
  private constructor(
    private readonly session: InferenceSession,
    /** The execution providers the session was created with. */
    readonly executionProviders: readonly string[],
  ) {}

  private static readonly wrappers = new WeakMap<InferenceSession, SeparationModel>();

  /** Loads (once per path, threads and providers, per process) the ONNX model. */
  static async load(model: string | URL = DEFAULT_SEPARATION_MODEL, options: SeparationModelOptions = {}): Promise<SeparationModel> {
    const providers = options.executionProviders ?? ['cpu'];
    const session = await loadOnnxSession(model, { ...options, executionProviders: providers });
    // One wrapper per cached session, so callers can tell a new load from a reused one.
    let wrapper = SeparationModel.wrappers.get(session);
    if (!wrapper) SeparationModel.wrappers.set(session, (wrapper = new SeparationModel(session, providers)));
    return wrapper;
  }

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /** One run over `frames` rows of magnitudes (`frames * 257` values); returns `frames * 257` mask values. */
  mask(mag: Float32Array, frames: number): Promise<Float32Array> {
    return runFrames(this.session, { input: 'mag', output: 'mask' }, mag, frames, BINS);
  }

  /**
   * {@link mask}, written into `out` (`frames * 257` values, not `mag`'s memory) instead of memory onnxruntime
   * allocates for each run: a thread that runs the model again and again keeps reusing one array.
   */
  async maskInto(mag: Float32Array, frames: number, out: Float32Array): Promise<void> {
    if (mag.length !== frames * BINS || out.length !== frames * BINS) throw new Error(`mag and out must hold ${frames}x${BINS} values`);
    if (frames === 0) return;
    const { Tensor } = ort();
    await this.session.run({ mag: new Tensor('float32', mag, [1, frames, BINS]) }, { mask: new Tensor('float32', out, [1, frames, BINS]) });
  }
}
