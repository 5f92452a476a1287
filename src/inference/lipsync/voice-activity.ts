/**
 * Voice activity from the log-mel features (no second pass over the audio): which 10 ms frames belong to speech,
 * so the mouth rests, closed and still, in the pauses between phrases whatever the viseme model makes of the room
 * tone, breaths or hum there.
 *
 * 1. Each mel band's noise floor is a low percentile of its log energy over the recording (a recording with pauses
 *    spends at least that share of its time in them; one without has its quietest speech there, far below vowels).
 * 2. A frame's excess is its log energy above the floor in the 10 bands that rise most, averaged (in dB) and then
 *    over 50 ms: stationary noise stays within a few dB of its floors (6–9 dB for these top bands), speech rises 10
 *    to 40 dB in the bands it fills.
 * 3. Hysteresis (on above `onDb`, off below `offDb`), then bursts shorter than `minSpeechMs` (clicks, a breath's
 *    edge) are dropped and gaps shorter than `hangoverMs` (stop closures, short word gaps) are filled, so the gate
 *    never chatters inside a phrase.
 */
import { N_MELS } from './features.js';

/** Settings of {@link voiceActivity}; the defaults suit speech from studio quiet (or digital silence) to room tone some 25 dB under the voice's peaks. */
export interface VoiceActivityOptions {
  /** Percentile (0–1) of each band's log energy taken as its noise floor (default 0.1). */
  floorPercentile?: number;
  /** Mean excess over the floor (dB) that starts speech (default 11). */
  onDb?: number;
  /** Mean excess (dB) under which speech stops (default 8). */
  offDb?: number;
  /** Shorter bursts of activity are not speech (ms, default 100; a burst reads some 50 ms longer than its sound). */
  minSpeechMs?: number;
  /** Shorter gaps inside speech stay speech (ms, default 250). */
  hangoverMs?: number;
}

/** 10·log10(e): natural-log power to dB. */
const DB_PER_NEPER = 10 / Math.LN10;
const FRAME_MS = 10;
/** How many of the 40 bands a frame's excess is the mean of. */
const TOP_BANDS = 10;
/** The excess is averaged over this many frames (50 ms) before the thresholds: noise flickers, speech lasts. */
const SMOOTH_FRAMES = 5;

/** Bins of the histogram a band's percentile is read from (to within 1/1024 of the band's range, a fraction of a dB). */
const BINS = 1024;

/** Each band's `q`-percentile of `features` (`[frames * N_MELS]`), from a histogram: linear time, no sort. */
function bandFloors(features: Float32Array, frames: number, q: number): Float64Array {
  const floors = new Float64Array(N_MELS);
  const counts = new Uint32Array(BINS);
  const rank = Math.min(frames - 1, Math.max(0, Math.floor(q * (frames - 1))));
  for (let b = 0; b < N_MELS; b++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let t = 0; t < frames; t++) {
      const v = features[t * N_MELS + b]!;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const step = (hi - lo) / BINS || 1;
    counts.fill(0);
    for (let t = 0; t < frames; t++) counts[Math.min(BINS - 1, Math.floor((features[t * N_MELS + b]! - lo) / step))]!++;
    let seen = 0;
    let bin = 0;
    while (bin < BINS - 1 && seen + counts[bin]! <= rank) seen += counts[bin++]!;
    floors[b] = lo + (bin + 0.5) * step;
  }
  return floors;
}

/**
 * Each frame's excess (dB) over the noise floor: the mean of its `TOP_BANDS` bands that rise most above their floors.
 * Speech need not be loud in every band (little of a vowel lies above 4 kHz, where a room's hiss does), so the
 * bands it does fill decide.
 */
function excessDb(features: Float32Array, frames: number, floorPercentile = 0.1): Float64Array {
  const out = new Float64Array(frames);
  if (frames === 0) return out;
  const floors = bandFloors(features, frames, floorPercentile);
  // The TOP_BANDS largest rises of a frame, kept in descending order by insertion.
  const top = new Float64Array(TOP_BANDS);
  for (let t = 0; t < frames; t++) {
    top.fill(0);
    for (let b = 0; b < N_MELS; b++) {
      const rise = features[t * N_MELS + b]! - floors[b]!;
      if (rise <= top[TOP_BANDS - 1]!) continue;
      let i = TOP_BANDS - 1;
      while (i > 0 && top[i - 1]! < rise) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = rise;
    }
    let sum = 0;
    for (let i = 0; i < TOP_BANDS; i++) sum += top[i]!;
    out[t] = (sum / TOP_BANDS) * DB_PER_NEPER;
  }
  return out;
}

/** Centred moving mean over `width` frames (fewer at the ends). */
function movingMean(values: Float64Array, width: number): Float64Array {
  const out = new Float64Array(values.length);
  const half = Math.floor(width / 2);
  for (let t = 0; t < values.length; t++) {
    const a = Math.max(0, t - half);
    const b = Math.min(values.length, t + half + 1);
    let sum = 0;
    for (let u = a; u < b; u++) sum += values[u]!;
    out[t] = sum / (b - a);
  }
  return out;
}

/** Sets runs of `value` shorter than `minFrames` in `mask` (bounded by the other value) to the other value. */
function dropShortRuns(mask: Uint8Array, value: 0 | 1, minFrames: number, keepEdges: boolean): void {
  let t = 0;
  while (t < mask.length) {
    if (mask[t] !== value) {
      t++;
      continue;
    }
    let end = t;
    while (end < mask.length && mask[end] === value) end++;
    const atEdge = t === 0 || end === mask.length;
    if (end - t < minFrames && !(keepEdges && atEdge)) mask.fill(value === 1 ? 0 : 1, t, end);
    t = end;
  }
}

/** 1 for each 10 ms frame of speech, 0 in pauses (see the module comment). */
export function voiceActivity(features: Float32Array, frames: number, options: VoiceActivityOptions = {}): Uint8Array {
  const excess = movingMean(excessDb(features, frames, options.floorPercentile ?? 0.1), SMOOTH_FRAMES);
  const on = options.onDb ?? 11;
  const off = options.offDb ?? 8;
  const mask = new Uint8Array(frames);
  let speaking = false;
  for (let t = 0; t < frames; t++) {
    speaking = speaking ? excess[t]! >= off : excess[t]! >= on;
    mask[t] = speaking ? 1 : 0;
  }
  dropShortRuns(mask, 1, Math.round((options.minSpeechMs ?? 100) / FRAME_MS), false);
  // Leading and trailing silence stays silence however short.
  dropShortRuns(mask, 0, Math.round((options.hangoverMs ?? 250) / FRAME_MS), true);
  return mask;
}
