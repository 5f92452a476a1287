/**
 * Landmarks smoothed in time. The face model places each point a little differently in every frame (half a pixel
 * or more on a still face); drawn from those points, a still head's lower face would shiver. Each coordinate goes
 * through a One Euro filter (Casiez et al., CHI 2012): a low-pass whose cutoff rises with the point's speed, so a
 * still point is held steady and a moving one (a nod, lips parting) follows without lag. The clip is prepared
 * offline, so the filter runs forwards and backwards and the two are averaged: their lags cancel.
 */

/** Settings of {@link smoothTrack}. */
export interface SmoothingOptions {
  /** Cutoff of a still point, Hz (default 1). */
  minCutoffHz?: number;
  /** Cutoff added per face size per second of speed (default 1.5). */
  beta?: number;
}

/**
 * The track of `frames` (each 136 numbers: 68 points) smoothed as the module comment says, in place of the input's
 * values, in a new array of the same shape. `scale` is the face's size in pixels (the eye distance): speeds are
 * measured in faces per second, so the filter acts alike on a small and a large face.
 */
export function smoothTrack(frames: readonly Float32Array[], fps: number, scale: number, options: SmoothingOptions = {}): Float32Array[] {
  const n = frames.length;
  const out = frames.map(() => new Float32Array(136));
  const series = new Float64Array(n);
  const forward = new Float64Array(n);
  const backward = new Float64Array(n);
  for (let c = 0; c < 136; c++) {
    for (let t = 0; t < n; t++) series[t] = frames[t]![c]!;
    oneEuro(series, forward, fps, scale, options, 1);
    oneEuro(series, backward, fps, scale, options, -1);
    for (let t = 0; t < n; t++) out[t]![c] = (forward[t]! + backward[t]!) / 2;
  }
  return out;
}

/** One pass of the One Euro filter over `input` into `output`, forwards (`direction` 1) or backwards (−1). */
function oneEuro(input: Float64Array, output: Float64Array, fps: number, scale: number, options: SmoothingOptions, direction: 1 | -1): void {
  const n = input.length;
  if (n === 0) return;
  const minCutoff = options.minCutoffHz ?? 1;
  const beta = options.beta ?? 1.5;
  const dt = 1 / fps;
  const alpha = (cutoff: number) => {
    const tau = 1 / (2 * Math.PI * cutoff);
    return 1 / (1 + tau / dt);
  };
  const derivativeAlpha = alpha(1);
  let t = direction === 1 ? 0 : n - 1;
  let value = input[t]!;
  let speed = 0;
  output[t] = value;
  for (let k = 1; k < n; k++) {
    t += direction;
    const raw = input[t]!;
    speed += derivativeAlpha * ((raw - value) / dt - speed);
    const cutoff = minCutoff + (beta * Math.abs(speed)) / scale;
    value += alpha(cutoff) * (raw - value);
    output[t] = value;
  }
}

/**
 * Fills the frames without a face (`undefined`) that lie between two with one, at most `maxGap` frames apart, by
 * linear interpolation of the points; returns the track and, per frame, whether it has a face now.
 */
export function fillGaps(frames: readonly (Float32Array | undefined)[], maxGap: number): { frames: (Float32Array | undefined)[]; found: boolean[] } {
  const filled = [...frames];
  let last = -1;
  for (let t = 0; t < frames.length; t++) {
    if (!frames[t]) continue;
    const gap = t - last - 1;
    if (last >= 0 && gap > 0 && gap <= maxGap) {
      const a = frames[last]!;
      const b = frames[t]!;
      for (let k = 1; k <= gap; k++) {
        const w = k / (gap + 1);
        const p = new Float32Array(136);
        for (let c = 0; c < 136; c++) p[c] = a[c]! * (1 - w) + b[c]! * w;
        filled[last + k] = p;
      }
    }
    last = t;
  }
  return { frames: filled, found: filled.map((p) => p !== undefined) };
}
