/**
 * Viseme posteriors (100 frames/s) -> one {@link MouthShape} per video frame, at any fps.
 *
 * 1. Pauses: frames outside voice activity (see voice-activity.ts; computed by the analysis from the features) are
 *    silence (X) whatever the model says there, so the mouth rests closed and still between phrases.
 * 2. Durations: a consonant shape lasts as long as its sound. The 10 ms frames where one of the short-lived
 *    classes ({@link DEFAULT_MAX_HOLD_MS}: P/B/M, F/V, L) is the most likely are runs; a run shorter than its
 *    minimum ({@link DEFAULT_MIN_HOLD_MS}) is a flicker and loses that class, and past its maximum the class fades
 *    out (30 ms) towards the next most likely one, so a misrecognised or long-tailed F/V never holds its teeth.
 * 3. Co-articulation: each frame's target shape is the posterior-weighted blend of the per-viseme shapes
 *    ({@link VISEME_SHAPES}); posteriors are sharpened first (p^2, renormalised) so a confident viseme dominates
 *    while uncertain frames blend neighbours. The targets (but the lip closure, which must stay sharp) are then
 *    smoothed over ±20 ms, so the lips start towards a sound a little before it.
 * 4. Each parameter follows its target with an asymmetric one-pole filter: fast attack (opening, spreading,
 *    rounding: 18 ms), slower release back towards rest (60 ms). Lip closure for P/B/M closes with the fast time
 *    constant; closing into silence uses the slow one. The short gestures (teeth on the lip, tongue, lip press)
 *    go back fast too (25 ms). In a pause, a mouth within 0.02 of rest snaps to it.
 * 5. A video frame takes the mean of the filtered track over its interval [i/fps, (i+1)/fps); a bilabial closure
 *    anywhere in that interval wins over the mean, so short /p/ /b/ /m/ stay visible at low frame rates.
 */
import { MOUTH_KEYS, mouthShapeOf, RESTING_MOUTH, type MouthShape } from './mouth.js';
import { FRAMES_PER_SECOND } from './features.js';
import { N_VISEMES, VISEMES, type Viseme } from './viseme-model.js';
import type { VoiceActivityOptions } from './voice-activity.js';

/** Mouth shape per viseme (Rhubarb's A–H + X). */
export const VISEME_SHAPES: Readonly<Record<Viseme, Readonly<MouthShape>>> = Object.freeze({
  X: RESTING_MOUTH, // silence: lips lightly closed, relaxed
  A: { open: 0, width: 0.05, round: 0, closed: 1, teeth: 0, press: 1, tongue: 0 }, // P B M: lips pressed, rolled in
  B: { open: 0.15, width: 0.6, round: 0, closed: 0, teeth: 0, press: 0, tongue: 0 }, // K S T, EE: teeth clenched, lips apart
  C: { open: 0.45, width: 0.5, round: 0, closed: 0, teeth: 0, press: 0, tongue: 0 }, // EH AE: open
  D: { open: 0.9, width: 0.35, round: 0, closed: 0, teeth: 0, press: 0, tongue: 0 }, // AA: wide open
  E: { open: 0.45, width: 0, round: 0.6, closed: 0, teeth: 0, press: 0, tongue: 0 }, // AO ER: rounded
  F: { open: 0.15, width: 0, round: 1, closed: 0, teeth: 0, press: 0, tongue: 0 }, // UW W: puckered
  G: { open: 0.1, width: 0.2, round: 0, closed: 0, teeth: 1, press: 0, tongue: 0 }, // F V: upper teeth on the lower lip
  H: { open: 0.4, width: 0.35, round: 0, closed: 0, teeth: 0, press: 0, tongue: 1 }, // L: tongue tip raised, mouth open
});

/** Longest run (ms) a short-lived class keeps its weight: a closure, an /f/ or /v/, an /l/ (see the module comment). */
export const DEFAULT_MAX_HOLD_MS: Readonly<Partial<Record<Viseme, number>>> = Object.freeze({ A: 250, G: 150, H: 150 });
/** Shortest run (ms) a class needs to show at all; P/B/M has none (a 30 ms closure is real and must show). */
export const DEFAULT_MIN_HOLD_MS: Readonly<Partial<Record<Viseme, number>>> = Object.freeze({ G: 30, H: 30 });

export interface MouthTrackOptions {
  /** Time constant when a parameter moves away from rest (ms, default 18). */
  attackMs?: number;
  /** Time constant when it returns towards rest (ms, default 60). */
  releaseMs?: number;
  /** Time constant of the teeth, tongue and lip press returning to rest (ms, default 25). */
  gestureReleaseMs?: number;
  /** Exponent sharpening the posteriors before blending (default 2; 1 = plain expectation). */
  sharpen?: number;
  /** Closure strength in an interval above which a video frame shows closed lips (default 0.6). */
  closureThreshold?: number;
  /** Per class, the longest run (ms) it keeps its weight (default {@link DEFAULT_MAX_HOLD_MS}). */
  maxHoldMs?: Partial<Record<Viseme, number>>;
  /** Per class, the shortest run (ms) that shows (default {@link DEFAULT_MIN_HOLD_MS}). */
  minHoldMs?: Partial<Record<Viseme, number>>;
  /** Half-width (ms) of the triangular smoothing of the targets, the anticipation of co-articulation (default 20). */
  coarticulationMs?: number;
  /**
   * The pause detection that keeps the mouth at rest between phrases (see voice-activity.ts), used by the analysis
   * that has the features; `false` animates whatever the model makes of the pauses.
   */
  voice?: VoiceActivityOptions | false;
}

const KEYS = MOUTH_KEYS;
const NK = KEYS.length;
const CLOSED = KEYS.indexOf('closed');
/** The short gestures: they release as fast as they attack. */
const GESTURES = new Set<number>(['teeth', 'tongue', 'press'].map((k) => KEYS.indexOf(k as (typeof KEYS)[number])));
const A_INDEX = VISEMES.indexOf('A');
const X_INDEX = VISEMES.indexOf('X');
/** Frames over which a class past its longest run fades out. */
const FADE_FRAMES = 3;
const REST = KEYS.map((k) => RESTING_MOUTH[k] ?? 0);

/** Number of video frames for a duration: ceil(duration * fps), robust to float noise. */
export function videoFrameCount(durationSec: number, fps: number): number {
  return Math.max(0, Math.ceil(durationSec * fps - 1e-6));
}

/** The most likely class of each frame. */
function argmaxes(posteriors: Float32Array, frames: number): Uint8Array {
  const best = new Uint8Array(frames);
  for (let t = 0; t < frames; t++) {
    let b = 0;
    for (let k = 1; k < N_VISEMES; k++) if (posteriors[t * N_VISEMES + k]! > posteriors[t * N_VISEMES + b]!) b = k;
    best[t] = b;
  }
  return best;
}

/**
 * Per frame and class, the factor its posterior keeps under the duration limits: 0 in a run shorter than its
 * minimum, fading from 1 to 0 past its maximum, 1 otherwise (`[frames * 9]`); `best` is each frame's most likely class.
 */
function durationWeights(best: Uint8Array, frames: number, options: MouthTrackOptions): Float32Array {
  const maxHold = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
  const minHold = options.minHoldMs ?? DEFAULT_MIN_HOLD_MS;
  const msPerFrame = 1000 / FRAMES_PER_SECOND;
  const weights = new Float32Array(frames * N_VISEMES).fill(1);
  let start = 0;
  while (start < frames) {
    const k = best[start]!;
    let end = start;
    while (end < frames && best[end] === k) end++;
    const v = VISEMES[k]!;
    const min = minHold[v];
    const max = maxHold[v];
    for (let t = start; t < end; t++) {
      let w = 1;
      if (min !== undefined && (end - start) * msPerFrame < min) w = 0;
      else if (max !== undefined) w = Math.min(1, Math.max(0, 1 - ((t - start + 1) * msPerFrame - max) / (FADE_FRAMES * msPerFrame)));
      weights[t * N_VISEMES + k] = w;
    }
    start = end;
  }
  return weights;
}

/**
 * Target mouth parameters per 10 ms frame (`[frames * 7]` in {@link MOUTH_KEYS} order) before the filter: the
 * sharpened, duration-limited, voice-gated posterior blend, smoothed for co-articulation.
 */
function targetTrack(posteriors: Float32Array, best: Uint8Array, frames: number, options: MouthTrackOptions, activity?: Uint8Array): Float32Array {
  const gamma = options.sharpen ?? 2;
  const shapes = VISEMES.map((v) => KEYS.map((k) => VISEME_SHAPES[v][k] ?? 0));
  const limits = durationWeights(best, frames, options);
  const raw = new Float32Array(frames * NK);
  const q = new Float64Array(N_VISEMES);
  for (let t = 0; t < frames; t++) {
    let sum = 0;
    if (activity === undefined || activity[t]) {
      for (let k = 0; k < N_VISEMES; k++) {
        q[k] = (Math.max(posteriors[t * N_VISEMES + k]!, 0) * limits[t * N_VISEMES + k]!) ** gamma;
        sum += q[k]!;
      }
    }
    for (let j = 0; j < NK; j++) {
      let target = 0;
      for (let k = 0; k < N_VISEMES; k++) target += q[k]! * shapes[k]![j]!;
      raw[t * NK + j] = sum > 0 ? target / sum : REST[j]!;
    }
  }
  // Co-articulation: a triangular kernel over ±half frames, within each stretch of speech (pauses stay at rest).
  const half = Math.round((options.coarticulationMs ?? 20) / (1000 / FRAMES_PER_SECOND));
  if (half < 1) return raw;
  const out = new Float32Array(raw);
  for (let t = 0; t < frames; t++) {
    if (activity !== undefined && !activity[t]) continue;
    for (let j = 0; j < NK; j++) {
      if (j === CLOSED) continue;
      let sum = 0;
      let norm = 0;
      for (let d = -half; d <= half; d++) {
        const u = t + d;
        if (u < 0 || u >= frames || (activity !== undefined && !activity[u])) continue;
        const w = half + 1 - Math.abs(d);
        sum += w * raw[u * NK + j]!;
        norm += w;
      }
      out[t * NK + j] = sum / norm;
    }
  }
  return out;
}

/**
 * Filtered mouth parameters at 100 frames/s: `[frames * 7]` in {@link MOUTH_KEYS} order. `activity` (1 speech,
 * 0 pause, per frame) gates the posteriors; without it every frame counts as speech.
 */
export function smoothedTrack(posteriors: Float32Array, frames: number, options: MouthTrackOptions = {}, activity?: Uint8Array): Float32Array {
  const dt = 1000 / FRAMES_PER_SECOND;
  const attack = 1 - Math.exp(-dt / (options.attackMs ?? 18));
  const release = 1 - Math.exp(-dt / (options.releaseMs ?? 60));
  const gestureRelease = 1 - Math.exp(-dt / (options.gestureReleaseMs ?? 25));
  const best = argmaxes(posteriors, frames);
  const targets = targetTrack(posteriors, best, frames, options, activity);
  const out = new Float32Array(frames * NK);
  const state = [...REST];
  for (let t = 0; t < frames; t++) {
    const speaking = activity === undefined || activity[t] === 1;
    for (let j = 0; j < NK; j++) {
      const target = targets[t * NK + j]!;
      const rest = REST[j]!;
      const awayFromRest = Math.abs(target - rest) > Math.abs(state[j]! - rest);
      // Closing the lips for P/B/M is as quick as opening; drifting shut into silence is slow.
      const closing = j === CLOSED && target > state[j]! && speaking && best[t] === A_INDEX;
      const rate = awayFromRest || closing ? attack : GESTURES.has(j) ? gestureRelease : release;
      state[j]! += (target - state[j]!) * rate;
      out[t * NK + j] = state[j]!;
    }
    // In a pause (or where silence fully dominates), snap the tiny residues to exact rest: the mouth is still.
    const silent = !speaking || (best[t] === X_INDEX && posteriors[t * N_VISEMES + X_INDEX]! ** 2 > 0.96);
    if (silent && state.every((v, j) => Math.abs(v - REST[j]!) < 0.02)) {
      for (let j = 0; j < NK; j++) out[t * NK + j] = state[j] = REST[j]!;
    }
  }
  return out;
}

/**
 * Mouth shapes for `videoFrames` frames at `fps` from 100 fps posteriors (`[frames * 9]`) and, optionally, the
 * voice activity of those frames (see {@link smoothedTrack}). Video frames past the end of the posteriors hold the
 * last value.
 */
export function mouthTrack(
  posteriors: Float32Array,
  frames: number,
  fps: number,
  videoFrames: number,
  options: MouthTrackOptions = {},
  activity?: Uint8Array,
): MouthShape[] {
  if (!(fps > 0)) throw new RangeError(`fps must be positive, got ${fps}`);
  const track = smoothedTrack(posteriors, frames, options, activity);
  const closureThreshold = options.closureThreshold ?? 0.6;
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
    const mean = new Array<number>(NK).fill(0);
    let closedMax = 0;
    for (let t = a; t < b; t++) {
      for (let j = 0; j < NK; j++) mean[j]! += track[t * NK + j]! / (b - a);
      closedMax = Math.max(closedMax, track[t * NK + CLOSED]!);
    }
    const shape = mouthShapeOf(mean.map((v) => Math.min(1, Math.max(0, v))));
    if (closedMax > closureThreshold && closedMax > shape.closed) {
      shape.closed = Math.min(1, closedMax);
      shape.open *= 1 - shape.closed;
      shape.teeth *= 1 - shape.closed;
    }
    result.push(shape);
  }
  return result;
}
