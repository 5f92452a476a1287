/**
 * The viseme recogniser (models/lipsync/viseme.onnx, trained by training/lipsync/): log-mel
 * features `[T, 40]` at 100 frames/s in, posteriors `[T, 9]` over {@link VISEMES} out.
 * Long inputs run in chunks with context on both sides, so memory stays bounded.
 */
import type * as ort from '../ort.js';
import { loadOnnxSession, runFrames } from '../onnx-session.js';
import { N_MELS } from './features.js';

/** Rhubarb Lip Sync's mouth shapes, in the model's output order (see training/lipsync/README.md). */
export const VISEMES = ['X', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const;
export type Viseme = (typeof VISEMES)[number];
export const N_VISEMES = VISEMES.length;

/** The model shipped with the package (resolved from this file, in src/ and in dist/ alike). */
export const DEFAULT_VISEME_MODEL: URL = new URL('../../../models/lipsync/viseme.onnx', import.meta.url);

export interface ChunkOptions {
  /** Frames whose posteriors one run produces (default 1000 = 10 s). */
  chunkFrames?: number;
  /** Extra frames before a chunk, run and discarded, to warm up the GRU (default 100 = 1 s). */
  leftContext?: number;
  /** Extra frames after a chunk for the convolutions' look-ahead (6 used; default 50). */
  rightContext?: number;
}

export class VisemeModel {
  private constructor(private readonly session: ort.InferenceSession) {}

  /** Loads (once per path and process) the ONNX model; single-threaded to stay a good neighbour. */
  static async load(model: string | URL = DEFAULT_VISEME_MODEL): Promise<VisemeModel> {
    return new VisemeModel(await loadOnnxSession(model));
  }

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /** One run over `frames` rows of features; returns `[frames * 9]` posteriors. */
  run(features: Float32Array, frames: number): Promise<Float32Array> {
    return runFrames(this.session, { input: 'features', output: 'posteriors' }, features, frames, N_MELS);
  }

  /** Posteriors for any length, computed chunk by chunk; equal to {@link run} up to the GRU's fading memory. */
  async posteriors(features: Float32Array, frames: number, options: ChunkOptions = {}, signal?: AbortSignal): Promise<Float32Array> {
    const chunk = options.chunkFrames ?? 1000;
    const left = options.leftContext ?? 100;
    const right = options.rightContext ?? 50;
    const out = new Float32Array(frames * N_VISEMES);
    for (let start = 0; start < frames; start += chunk) {
      signal?.throwIfAborted();
      const end = Math.min(frames, start + chunk);
      const from = Math.max(0, start - left);
      const to = Math.min(frames, end + right);
      const post = await this.run(features.subarray(from * N_MELS, to * N_MELS), to - from);
      out.set(post.subarray((start - from) * N_VISEMES, (end - from) * N_VISEMES), start * N_VISEMES);
    }
    return out;
  }
}
