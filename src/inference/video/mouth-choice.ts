/**
 * Choosing mouths: the clip's relaxed closed mouth (the rest every frame is measured against), its most neutral
 * frames (closed, relaxed, still; spread over the head's poses), and the frames whose mouths make the atlas (for each
 * mouth shape the lip-sync track draws, the clip's sharpest frames nearest it, in different poses). Pure arithmetic
 * on the measured landmarks.
 */
import type { MouthShape } from '../lipsync/mouth.js';
import { VISEME_SHAPES } from '../lipsync/mouth-track.js';
import { VIDEO_VISEMES } from '../../domain/avatar/video-face.js';
import type { MeasuredShape, MouthMeasure, RestMouth } from './face-geometry.js';

/** One frame of the source as the choice sees it. */
export interface FrameFacts {
  /** Whether the frame has a face good to cut a mouth from (found, not next to a frame without one). */
  usable: boolean;
  mouth: MouthMeasure;
  shape: MeasuredShape;
  yaw: number;
  pitch: number;
}

/** A chosen frame. */
export interface ChosenMouth {
  frame: number;
  viseme: (typeof VIDEO_VISEMES)[number];
}

type ShapeLike = Pick<MouthShape, 'open' | 'width' | 'round' | 'closed'> & { press?: number; teeth?: number };

/**
 * How far apart two mouths look, in the track's parameters: the opening counts most, then rounding and the teeth on
 * the lip; the spread less (the renderer moves an entry's corners by the difference), whether the lips just touch
 * less still, and how hard they press least (landmarks barely show it).
 */
export function shapeDistance(a: ShapeLike, b: ShapeLike): number {
  return (
    4 * (a.open - b.open) ** 2 +
    0.5 * (a.width - b.width) ** 2 +
    1.5 * (a.round - b.round) ** 2 +
    0.3 * (a.closed - b.closed) ** 2 +
    0.05 * ((a.press ?? 0) - (b.press ?? 0)) ** 2 +
    1.5 * ((a.teeth ?? 0) - (b.teeth ?? 0)) ** 2
  );
}

/**
 * How much of the difference between two mouths moving the lips cannot make up: the opening, where an inside (teeth,
 * tongue) must show that the nearer mouth does not have. Spread, rounding and the lower lip under the teeth are made
 * by moving a real mouth's lips; the renderer draws a mouth itself only where the clip's nearest opening is this far.
 */
export function lackDistance(a: ShapeLike, b: ShapeLike): number {
  return 4 * (a.open - b.open) ** 2;
}

/** How far apart two head poses are (turn in half jaw widths, nod in eye distances, weighted alike). */
export function poseDistance(a: { yaw: number; pitch: number }, b: { yaw: number; pitch: number }): number {
  return Math.hypot(a.yaw - b.yaw, 2 * (a.pitch - b.pitch));
}

const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!;
};

/**
 * The clip's relaxed closed mouth: among the frames whose lips are closest (the fifth with the smallest gap), those
 * neither spread (a smile) nor narrowed (a pout) — the middle of their widths — and of those the median of each
 * measure.
 */
export function restMouth(mouths: readonly MouthMeasure[]): RestMouth {
  const gapLimit = quantile(mouths.map((m) => m.gap), 0.2);
  const closed = mouths.filter((m) => m.gap <= gapLimit);
  const lo = quantile(closed.map((m) => m.width), 0.2);
  const hi = quantile(closed.map((m) => m.width), 0.6);
  const relaxed = closed.filter((m) => m.width >= lo && m.width <= hi);
  const pick = relaxed.length > 0 ? relaxed : closed;
  const median = (key: keyof MouthMeasure) => quantile(pick.map((m) => m[key]), 0.5);
  return { gap: median('gap'), width: median('width'), upperLip: median('upperLip'), lowerLip: median('lowerLip'), chin: median('chin') };
}

/** How fast the mouth moves at each frame (its blur), in the track's parameters per frame. */
export function mouthSpeeds(facts: readonly FrameFacts[]): Float32Array {
  const speeds = new Float32Array(facts.length);
  for (let t = 0; t < facts.length; t++) {
    const a = facts[Math.max(0, t - 1)]!.shape;
    const b = facts[t]!.shape;
    const c = facts[Math.min(facts.length - 1, t + 1)]!.shape;
    speeds[t] = Math.abs(b.open - a.open) + Math.abs(c.open - b.open) + 0.5 * (Math.abs(b.width - a.width) + Math.abs(c.width - b.width));
  }
  return speeds;
}

/** Most neutral frames kept (each for the poses nearest it). */
export const MAX_NEUTRAL = 8;

/**
 * The most neutral frames: closed, relaxed lips (as wide as at rest, no thinner or fuller), a still mouth, a usable
 * face; one for each region of the head poses the clip holds (turn × nod cells by quantiles), the best there, so that
 * every frame finds a neutral mouth seen from nearly its own angle.
 */
export function chooseNeutral(facts: readonly FrameFacts[], rest: RestMouth): number[] {
  const speeds = mouthSpeeds(facts);
  const usable = facts.map((f, t) => t).filter((t) => facts[t]!.usable);
  if (usable.length === 0) return [];
  const score = (t: number) => {
    const { mouth, shape } = facts[t]!;
    return (
      3 * Math.abs(mouth.width / rest.width - 1) +
      2 * Math.max(0, mouth.gap - rest.gap) / rest.width +
      Math.abs(mouth.upperLip + mouth.lowerLip - rest.upperLip - rest.lowerLip) / rest.width +
      speeds[t]! +
      (1 - shape.closed)
    );
  };
  const yaws = usable.map((t) => facts[t]!.yaw);
  const pitches = usable.map((t) => facts[t]!.pitch);
  const yawCuts = [0.2, 0.4, 0.6, 0.8].map((q) => quantile(yaws, q));
  const pitchCut = quantile(pitches, 0.5);
  const cellOf = (t: number) => yawCuts.filter((c) => facts[t]!.yaw > c).length * 2 + (facts[t]!.pitch > pitchCut ? 1 : 0);
  const cells = new Map<number, number[]>();
  for (const t of usable) cells.set(cellOf(t), [...(cells.get(cellOf(t)) ?? []), t]);
  const chosen: number[] = [];
  const ranked = [...cells.values()].sort((a, b) => b.length - a.length);
  for (const members of ranked) {
    if (chosen.length >= MAX_NEUTRAL) break;
    if (members.length < usable.length * 0.03 && chosen.length > 0) continue;
    const centre = { yaw: quantile(members.map((t) => facts[t]!.yaw), 0.5), pitch: quantile(members.map((t) => facts[t]!.pitch), 0.5) };
    // The best neutral frame of the whole clip for this pose: its mouth first, its angle second.
    let best = -1;
    let bestCost = Infinity;
    for (const t of usable) {
      const cost = score(t) + 1.5 * poseDistance(facts[t]!, centre);
      if (cost < bestCost) {
        bestCost = cost;
        best = t;
      }
    }
    if (best >= 0 && !chosen.includes(best)) chosen.push(best);
  }
  return chosen;
}

/** Mouths kept in the atlas besides the neutral ones. */
export const ATLAS_SIZE = 48;
/** Sampling stops when every frame's mouth lies this near one kept ({@link shapeDistance}). */
const ATLAS_SPACING = 0.004;

/**
 * The frames whose mouths make the atlas: the clip's own range of mouths covered evenly (farthest-point sampling in
 * the track's parameters, the neutral frames as the first points), from frames where the mouth is still (sharp),
 * with the head's pose as a small part of the distance, so that close mouths in other poses are kept too. Each is
 * labelled with the class of the track whose shape it is nearest (the track's opening scaled by `openScale`).
 */
export function chooseAtlas(facts: readonly FrameFacts[], openScale: number, neutral: readonly number[] = []): ChosenMouth[] {
  const speeds = mouthSpeeds(facts);
  const usable = facts.map((_, t) => t).filter((t) => facts[t]!.usable);
  const still = quantile(usable.map((t) => speeds[t]!), 0.6);
  const candidates = usable.filter((t) => speeds[t]! <= still && !neutral.includes(t));
  const distance = (a: number, b: number) => shapeDistance(facts[a]!.shape, facts[b]!.shape) + 0.02 * poseDistance(facts[a]!, facts[b]!) ** 2;
  const nearest = new Float64Array(candidates.length).fill(Infinity);
  const update = (chosen: number) => candidates.forEach((t, i) => (nearest[i] = Math.min(nearest[i]!, distance(t, chosen))));
  for (const t of neutral) update(t);
  const chosen: ChosenMouth[] = [];
  while (chosen.length < ATLAS_SIZE && candidates.length > 0) {
    let best = -1;
    for (let i = 0; i < candidates.length; i++) if (best < 0 || nearest[i]! > nearest[best]!) best = i;
    if (nearest[best]! < ATLAS_SPACING) break;
    const t = candidates[best]!;
    chosen.push({ frame: t, viseme: nearestViseme(facts[t]!.shape, openScale) });
    update(t);
  }
  return chosen;
}

/** The class of the track whose shape (its opening scaled by `openScale`) is nearest `shape`. */
export function nearestViseme(shape: ShapeLike, openScale: number): (typeof VIDEO_VISEMES)[number] {
  let best: (typeof VIDEO_VISEMES)[number] = 'X';
  let bestDistance = Infinity;
  for (const viseme of VIDEO_VISEMES) {
    const target = VISEME_SHAPES[viseme];
    const d = shapeDistance(shape, { ...target, open: target.open * openScale });
    if (d < bestDistance) {
      bestDistance = d;
      best = viseme;
    }
  }
  return best;
}

/**
 * How the track's opening maps onto this clip's: a person who never opens as wide as the track's widest (AA, 0.9)
 * still shows their own widest mouths for it. The clip's opening at its 98th percentile over 0.9, within [0.5, 1].
 */
export function openingScale(facts: readonly FrameFacts[]): number {
  const opens = facts.filter((f) => f.usable).map((f) => f.shape.open);
  return Math.max(0.5, Math.min(1, quantile(opens, 0.98) / 0.9));
}
