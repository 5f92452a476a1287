import { MOUTH_KEYS, mouthShapeOf, type MouthShape } from './mouth.js';
import type { MouthAnalysis, MouthAnalysisSettings } from './mouth-analysis.js';

/** One analysis, as sent to the analysis worker. */
export interface AnalysisTask {
  settings: MouthAnalysisSettings;
  audioPath: string;
  fps: number;
  durationSec?: number;
}

/** A {@link MouthAnalysis} with its shapes packed into one array (one value per parameter per frame), as the worker returns it. */
export type PackedAnalysis = Omit<MouthAnalysis, 'shapes'> & { shapes: Float64Array };

/** Shapes → `[frames * 7]` doubles (exact) in {@link MOUTH_KEYS} order, absent ones 0 (cheap to move between threads). */
export function packShapes(shapes: readonly MouthShape[]): Float64Array {
  const n = MOUTH_KEYS.length;
  const packed = new Float64Array(shapes.length * n);
  shapes.forEach((shape, i) => MOUTH_KEYS.forEach((key, j) => (packed[i * n + j] = shape[key] ?? 0)));
  return packed;
}

/** The inverse of {@link packShapes}. */
export function unpackShapes(packed: Float64Array): MouthShape[] {
  const shapes: MouthShape[] = [];
  for (let o = 0; o < packed.length; o += MOUTH_KEYS.length) shapes.push(mouthShapeOf(packed.subarray(o, o + MOUTH_KEYS.length)));
  return shapes;
}
