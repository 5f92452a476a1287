/**
 * Where the prepared clip loops. A speech longer than the clip goes on by playing it again, so the clip is cut to
 * frames `start … end − 1` where the join looks like the clip's own motion: frame `start` resembles frame `end` (the
 * one that would have followed) and `start − 1` resembles `end − 1`, in the whole picture (a small thumbnail: the
 * body, the hands, the light) and in the head's place and pose (its steady landmarks). The last few frames are then
 * mixed towards the frames before `start` (the crossfade, done by the preparation), so the join is the source's own
 * step from `start − 1` to `start`: a calm one is chosen, by the change of the picture's detail (every
 * {@link SAMPLE_STRIDE}th pixel each way) from the frame before, which the thumbnails average away.
 */

/** What the choice looks at in each frame. */
export interface LoopFrame {
  /** A small luma thumbnail of the whole frame ({@link THUMB_WIDTH} × {@link THUMB_HEIGHT}). */
  thumb: Uint8Array;
  /** Steady landmarks (eyes, nose, jaw by the ears) in eye distances, or none where no face was found. */
  pose?: Float32Array;
  /** The picture's change from the frame before, in detail ({@link sampleStep}; 0 for the first frame). */
  step?: number;
}

export const THUMB_WIDTH = 8;
export const THUMB_HEIGHT = 6;

/** The chosen loop. */
export interface LoopChoice {
  start: number;
  /** Exclusive. */
  end: number;
  /** Frames at the end mixed towards those before `start`. */
  crossfade: number;
  /** How unlike the join is ({@link frameDistance} of the two pairs), and the clip's median step for comparison. */
  joinDistance: number;
  medianStep: number;
}

/** The steady landmarks a loop's head pose is compared by. */
export const POSE_LANDMARKS = [0, 2, 14, 16, 27, 30, 31, 35, 36, 39, 42, 45];

/** The thumbnail of a `width × height` yuv420p frame: the mean luma of each cell. */
export function lumaThumb(frame: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(THUMB_WIDTH * THUMB_HEIGHT);
  const step = Math.max(1, Math.floor(Math.min(width / THUMB_WIDTH, height / THUMB_HEIGHT) / 8));
  for (let cy = 0; cy < THUMB_HEIGHT; cy++) {
    const y0 = Math.floor((cy * height) / THUMB_HEIGHT);
    const y1 = Math.floor(((cy + 1) * height) / THUMB_HEIGHT);
    for (let cx = 0; cx < THUMB_WIDTH; cx++) {
      const x0 = Math.floor((cx * width) / THUMB_WIDTH);
      const x1 = Math.floor(((cx + 1) * width) / THUMB_WIDTH);
      let sum = 0;
      let n = 0;
      for (let y = y0; y < y1; y += step) {
        for (let x = x0; x < x1; x += step) {
          sum += frame[y * width + x]!;
          n++;
        }
      }
      out[cy * THUMB_WIDTH + cx] = n > 0 ? Math.round(sum / n) : 0;
    }
  }
  return out;
}

/** One luma pixel in this many each way makes the sample {@link sampleStep} compares. */
export const SAMPLE_STRIDE = 4;

/** A sparse sample of a `width × height` yuv420p frame's luma (every {@link SAMPLE_STRIDE}th pixel of every such row). */
export function lumaSample(frame: Uint8Array, width: number, height: number): Uint8Array {
  const columns = Math.ceil(width / SAMPLE_STRIDE);
  const out = new Uint8Array(columns * Math.ceil(height / SAMPLE_STRIDE));
  let k = 0;
  for (let y = 0; y < height; y += SAMPLE_STRIDE) {
    for (let x = 0, p = y * width; x < width; x += SAMPLE_STRIDE, p += SAMPLE_STRIDE) out[k++] = frame[p]!;
  }
  return out;
}

/** The mean absolute difference of two {@link lumaSample}s (grey levels): how much the picture changed in detail. */
export function sampleStep(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / Math.max(1, a.length);
}

/** The steady landmarks of `points` (68, pixels) relative to the eyes' midpoint, in eye distances. */
export function poseVector(points: ArrayLike<number>): Float32Array {
  const ex = (points[72]! + points[90]!) / 2;
  const ey = (points[73]! + points[91]!) / 2;
  const iod = Math.hypot(points[90]! - points[72]!, points[91]! - points[73]!) || 1;
  const out = new Float32Array(POSE_LANDMARKS.length * 2 + 2);
  POSE_LANDMARKS.forEach((i, k) => {
    out[2 * k] = (points[2 * i]! - ex) / iod;
    out[2 * k + 1] = (points[2 * i + 1]! - ey) / iod;
  });
  // Where the head is in the frame and how large, in units of its eye distance's typical frame-to-frame drift.
  out[out.length - 2] = ex / iod;
  out[out.length - 1] = ey / iod;
  return out;
}

/** How unlike two frames look: the thumbnails' mean luma difference plus the head's pose difference (scaled alike). */
export function frameDistance(a: LoopFrame, b: LoopFrame): number {
  let d = 0;
  for (let i = 0; i < a.thumb.length; i++) d += Math.abs(a.thumb[i]! - b.thumb[i]!);
  d /= a.thumb.length;
  if (a.pose && b.pose) {
    let p = 0;
    for (let i = 0; i < a.pose.length; i++) p += Math.abs(a.pose[i]! - b.pose[i]!);
    d += (100 * p) / a.pose.length;
  } else if (a.pose || b.pose) {
    d += 50;
  }
  return d;
}

/** Weight of the join's step in detail ({@link LoopFrame.step}) in a loop's cost, against the thumbnails' distances. */
const CALM_WEIGHT = 4;

/**
 * The loop of a clip of `frames` (see the module comment): at least `minLength` frames (default: 60 % of the clip),
 * starting within its first quarter, at or after `crossfade`; frames without a face (`lost`) inside it count against
 * it.
 */
export function chooseLoop(frames: readonly LoopFrame[], crossfade: number, lost: readonly boolean[], minLength?: number): LoopChoice {
  const n = frames.length;
  // steps[t]: from frame t to t + 1.
  const steps: number[] = [];
  for (let t = 1; t < n; t++) steps.push(frameDistance(frames[t - 1]!, frames[t]!));
  const sorted = [...steps].sort((a, b) => a - b);
  const medianStep = sorted[sorted.length >> 1] ?? 0;
  const fade = Math.max(0, Math.min(crossfade, Math.floor(n / 8)));
  const length = Math.min(n - fade - 1, Math.max(2, minLength ?? Math.ceil(0.6 * n)));
  const lostBefore = new Int32Array(n + 1);
  for (let t = 0; t < n; t++) lostBefore[t + 1] = lostBefore[t]! + (lost[t] ? 1 : 0);
  let best: LoopChoice = { start: 0, end: n, crossfade: 0, joinDistance: Infinity, medianStep };
  let bestCost = Infinity;
  const lastStart = Math.max(fade + 1, Math.floor(n / 4));
  for (let start = Math.max(1, fade); start <= lastStart && start + length < n; start++) {
    for (let end = start + length; end <= n - 1; end++) {
      const join = frameDistance(frames[start]!, frames[end]!) + frameDistance(frames[start - 1]!, frames[end - 1]!);
      const lostInside = lostBefore[end]! - lostBefore[start]!;
      // The join is the source's step from `start − 1` to `start` (the crossfade ends on `start − 1`): a calm one is
      // better, in the thumbnails and in detail. Longer loops a little better; frames without a face inside much worse.
      const cost = join + steps[start - 1]! + CALM_WEIGHT * (frames[start]!.step ?? 0) + 10 * lostInside - (2 * (end - start)) / n;
      if (cost < bestCost) {
        bestCost = cost;
        best = { start, end, crossfade: Math.min(fade, start), joinDistance: join / 2, medianStep };
      }
    }
  }
  return best;
}
