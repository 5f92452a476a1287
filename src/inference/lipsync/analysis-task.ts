import type { MouthShape } from './mouth.js';
import type { MouthAnalysis, MouthAnalysisSettings } from './mouth-analysis.js';

/** One analysis, as sent to the analysis worker. */
export interface AnalysisTask {
  settings: MouthAnalysisSettings;
  audioPath: string;
  fps: number;
  durationSec?: number;
}

/** A {@link MouthAnalysis} with its shapes packed into one array (5 values per frame), as the worker returns it. */
export type PackedAnalysis = Omit<MouthAnalysis, 'shapes'> & { shapes: Float64Array };

const KEYS = ['open', 'width', 'round', 'closed', 'teeth'] as const;

/** Shapes → `[frames * 5]` doubles (exact) in `open, width, round, closed, teeth` order (cheap to move between threads). */
export function packShapes(shapes: readonly MouthShape[]): Float64Array {
  const packed = new Float64Array(shapes.length * KEYS.length);
  shapes.forEach((shape, i) => KEYS.forEach((key, j) => (packed[i * KEYS.length + j] = shape[key])));
  return packed;
}

/** The inverse of {@link packShapes}. */
export function unpackShapes(packed: Float64Array): MouthShape[] {
  const shapes: MouthShape[] = [];
  for (let o = 0; o < packed.length; o += KEYS.length) {
    shapes.push({ open: packed[o]!, width: packed[o + 1]!, round: packed[o + 2]!, closed: packed[o + 3]!, teeth: packed[o + 4]! });
  }
  return shapes;
}
