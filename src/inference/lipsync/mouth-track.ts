/**
 * Viseme posteriors (100 frames/s) -> one {@link MouthShape} per video frame, at any fps.
 *
 * 1. Each 10 ms frame's target shape is the posterior-weighted blend of the per-viseme shapes
 *    ({@link VISEME_SHAPES}); posteriors are sharpened first (p^2, renormalised) so a confident
 *    viseme dominates while uncertain frames blend neighbours — a cheap co-articulation.
 * 2. Each parameter follows its target with an asymmetric one-pole filter: fast attack (opening,
 *    spreading, rounding: 18 ms), slower release back towards rest (60 ms). Lip closure for
 *    P/B/M closes with the fast time constant; closing into silence uses the slow one.
 * 3. A video frame takes the mean of the filtered track over its interval
 *    [i/fps, (i+1)/fps); a bilabial closure anywhere in that interval wins over the mean, so short
 *    /p/ /b/ /m/ stay visible at low frame rates.
 *
 * In silence (X) the target is {@link RESTING_MOUTH}: the mouth rests closed.
 */
import { RESTING_MOUTH, type MouthShape } from './mouth.js';
import { FRAMES_PER_SECOND } from './features.js';
import { N_VISEMES, VISEMES, type Viseme } from './viseme-model.js';

/** Mouth shape per viseme (Rhubarb's A–H + X). */
export const VISEME_SHAPES: Readonly<Record<Viseme, Readonly<MouthShape>>> = Object.freeze({
  X: RESTING_MOUTH,
  A: { open: 0, width: 0.1, round: 0, closed: 1, teeth: 0 }, // P B M: lips pressed
  B: { open: 0.22, width: 0.55, round: 0, closed: 0, teeth: 0 }, // most consonants, EE: clenched, slightly open
  C: { open: 0.5, width: 0.5, round: 0, closed: 0, teeth: 0 }, // EH AE: open
  D: { open: 0.9, width: 0.35, round: 0, closed: 0, teeth: 0 }, // AA: wide open
  E: { open: 0.5, width: 0, round: 0.6, closed: 0, teeth: 0 }, // AO ER: rounded
  F: { open: 0.22, width: 0, round: 1, closed: 0, teeth: 0 }, // UW W: puckered
  G: { open: 0.15, width: 0.3, round: 0, closed: 0, teeth: 1 }, // F V: teeth on lower lip
  H: { open: 0.4, width: 0.35, round: 0, closed: 0, teeth: 0 }, // L: tongue up, mouth open
});

export interface MouthTrackOptions {
  /** Time constant when a parameter moves away from rest (ms, default 18). */
  attackMs?: number;
  /** Time constant when it returns towards rest (ms, default 60). */
  releaseMs?: number;
  /** Exponent sharpening the posteriors before blending (default 2; 1 = plain expectation). */
  sharpen?: number;
  /** Closure strength in an interval above which a video frame shows closed lips (default 0.6). */
  closureThreshold?: number;
}

const KEYS = ['open', 'width', 'round', 'closed', 'teeth'] as const;
type Key = (typeof KEYS)[number];
const A_INDEX = VISEMES.indexOf('A');
const X_INDEX = VISEMES.indexOf('X');

/** Number of video frames for a duration: ceil(duration * fps), robust to float noise. */
export function videoFrameCount(durationSec: number, fps: number): number {
  return Math.max(0, Math.ceil(durationSec * fps - 1e-6));
}

/** Filtered mouth parameters at 100 frames/s: `[frames * 5]` in {@link KEYS} order. */
export function smoothedTrack(posteriors: Float32Array, frames: number, options: MouthTrackOptions = {}): Float32Array {
  const dt = 1000 / FRAMES_PER_SECOND;
  const attack = 1 - Math.exp(-dt / (options.attackMs ?? 18));
  const release = 1 - Math.exp(-dt / (options.releaseMs ?? 60));
  const gamma = options.sharpen ?? 2;
  const shapes = VISEMES.map((v) => VISEME_SHAPES[v]);
  const out = new Float32Array(frames * KEYS.length);
  const state = KEYS.map((k) => RESTING_MOUTH[k]);
  const q = new Float64Array(N_VISEMES);
  for (let t = 0; t < frames; t++) {
    let sum = 0;
    let best = 0;
    for (let k = 0; k < N_VISEMES; k++) {
      q[k] = Math.max(posteriors[t * N_VISEMES + k], 0) ** gamma;
      sum += q[k];
      if (q[k] > q[best]) best = k;
    }
    for (let j = 0; j < KEYS.length; j++) {
      const key: Key = KEYS[j];
      let target = 0;
      for (let k = 0; k < N_VISEMES; k++) target += (q[k] / (sum || 1)) * shapes[k][key];
      if (sum === 0) target = RESTING_MOUTH[key];
      const rest = RESTING_MOUTH[key];
      const awayFromRest = Math.abs(target - rest) > Math.abs(state[j] - rest);
      // Closing the lips for P/B/M is as quick as opening; drifting shut into silence is slow.
      const fast = awayFromRest || (key === 'closed' && target > state[j] && best === A_INDEX);
      state[j] += (target - state[j]) * (fast ? attack : release);
      out[t * KEYS.length + j] = state[j];
    }
    // Posterior mass of silence fully dominant: snap the tiny residues to exact rest.
    if (best === X_INDEX && q[X_INDEX] / (sum || 1) > 0.98) {
      for (let j = 0; j < KEYS.length; j++) {
        const rest = RESTING_MOUTH[KEYS[j]];
        if (Math.abs(state[j] - rest) < 0.02) out[t * KEYS.length + j] = state[j] = rest;
      }
    }
  }
  return out;
}

/**
 * Mouth shapes for `videoFrames` frames at `fps` from 100 fps posteriors (`[frames * 9]`).
 * Video frames past the end of the posteriors hold the last value.
 */
export function mouthTrack(
  posteriors: Float32Array,
  frames: number,
  fps: number,
  videoFrames: number,
  options: MouthTrackOptions = {},
): MouthShape[] {
  if (!(fps > 0)) throw new RangeError(`fps must be positive, got ${fps}`);
  const track = smoothedTrack(posteriors, frames, options);
  const closureThreshold = options.closureThreshold ?? 0.6;
  const nk = KEYS.length;
  const result: MouthShape[] = [];
  for (let i = 0; i < videoFrames; i++) {
    if (frames === 0) {
      result.push({ ...RESTING_MOUTH });
      continue;
    }
    let a = Math.floor((i * FRAMES_PER_SECOND) / fps);
    let b = Math.ceil(((i + 1) * FRAMES_PER_SECOND) / fps);
    a = Math.min(a, frames - 1);
    b = Math.min(Math.max(b, a + 1), frames);
    const mean = [0, 0, 0, 0, 0];
    let closedMax = 0;
    for (let t = a; t < b; t++) {
      for (let j = 0; j < nk; j++) mean[j] += track[t * nk + j] / (b - a);
      closedMax = Math.max(closedMax, track[t * nk + 3]);
    }
    const shape: MouthShape = { open: mean[0], width: mean[1], round: mean[2], closed: mean[3], teeth: mean[4] };
    if (closedMax > closureThreshold && closedMax > shape.closed) {
      shape.closed = closedMax;
      shape.open *= 1 - closedMax;
      shape.teeth *= 1 - closedMax;
    }
    for (const key of KEYS) shape[key] = Math.min(1, Math.max(0, shape[key]));
    result.push(shape);
  }
  return result;
}
