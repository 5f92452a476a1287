/**
 * BASELINE ONLY — not used for rendering. A loudness-only "lip sync": mouth openness from frame
 * RMS, the comparison point for the viseme model in training/lipsync/README.md (RESULTS) and the
 * bench. It mirrors `baseline_predict` in training/lipsync/evaluate.py:
 *
 * - RMS over the same 25 ms frames as the features (frame t = samples [t*160-120, t*160+280),
 *   zeros outside, rectangular window), in dB;
 * - relative to the recording's 95th-percentile frame level (a whole-file auto gain);
 * - below `rest` dB -> X (rest), below `c` -> B (slightly open), below `d` -> C (open), else D (wide).
 *
 * The default thresholds were grid-searched on the training set (training/lipsync/results.json).
 */
import { HOP, LEFT, WIN, numFrames } from './features.js';
import { N_VISEMES, VISEMES } from './viseme-model.js';

export interface LoudnessThresholds {
  rest: number;
  c: number;
  d: number;
}

/** From training/lipsync/results.json, `baseline_thresholds_db`. */
export const DEFAULT_LOUDNESS_THRESHOLDS: Readonly<LoudnessThresholds> = Object.freeze({ rest: -19, c: -1, d: 0 });

/** Per-frame RMS (100 frames/s) of 16 kHz samples. */
export function frameRms(samples: ArrayLike<number>): Float64Array {
  const frames = numFrames(samples.length);
  const out = new Float64Array(frames);
  for (let t = 0; t < frames; t++) {
    const start = t * HOP - LEFT;
    let sum = 0;
    for (let n = Math.max(0, start); n < Math.min(samples.length, start + WIN); n++) sum += samples[n] * samples[n];
    out[t] = Math.sqrt(sum / WIN);
  }
  return out;
}

/** Frame level in dB relative to the recording's 95th-percentile frame (numpy's linear percentile). */
export function relativeDb(rms: Float64Array): Float64Array {
  const db = rms.map((r) => 20 * Math.log10(r + 1e-9));
  if (db.length === 0) return db;
  const sorted = Float64Array.from(db).sort();
  const pos = 0.95 * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  const p95 = sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  return db.map((v) => v - p95);
}

/** Baseline viseme per frame (indices into {@link VISEMES}: only X, B, C, D occur). */
export function loudnessVisemes(samples: ArrayLike<number>, th: LoudnessThresholds = DEFAULT_LOUDNESS_THRESHOLDS): Uint8Array {
  const rel = relativeDb(frameRms(samples));
  const [X, B, C, D] = (['X', 'B', 'C', 'D'] as const).map((v) => VISEMES.indexOf(v));
  return Uint8Array.from(rel, (r) => (r < th.rest ? X : r >= th.d ? D : r >= th.c ? C : B));
}

/** One-hot "posteriors" `[frames * 9]` so the baseline can drive the same mouth-track code. */
export function loudnessPosteriors(samples: ArrayLike<number>, th?: LoudnessThresholds): Float32Array {
  const v = loudnessVisemes(samples, th);
  const out = new Float32Array(v.length * N_VISEMES);
  v.forEach((k, t) => (out[t * N_VISEMES + k] = 1));
  return out;
}
