/**
 * What the 68 points of one frame say about the face: its pose (in-plane from the eye line; turned left or right and
 * up or down from the nose against the jaw and eyes) and its mouth, measured in the lip-sync track's own terms
 * (`MouthShape`: how far the lips part, spread, round, press, tuck under the teeth), relative to the clip's relaxed
 * closed mouth. These numbers choose the neutral frames, index the mouth atlas and pick its entry for each frame.
 */
import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import { faceAxes, toFace, type FaceAxes } from '../photo/face-axes.js';
import { MAX_OPENING } from '../photo/face-motion.js';

/** 68 points as `FacePoint`s (the photo renderer's helpers take them so). */
export function facePoints(points: Float32Array | Float64Array): FacePoint[] {
  return Array.from({ length: 68 }, (_, i) => [points[2 * i]!, points[2 * i + 1]!] as FacePoint);
}

/** A face's pose, in units that compare across frames of a clip. */
export interface FacePose {
  axes: FaceAxes;
  /** Turn left/right: the nose tip's offset from the jaw's middle, in half jaw widths (0 frontal). */
  yaw: number;
  /** Nod: the nose tip's distance below the eye line, in eye distances (larger: looking down). */
  pitch: number;
  /** In-plane tilt of the eye line, radians. */
  roll: number;
}

/** The pose of the face whose 68 points are `points`. */
export function facePose(points: Float32Array | Float64Array): FacePose {
  const p = facePoints(points);
  const axes = faceAxes(p);
  const nose = toFace(axes, p[30]!);
  const left = toFace(axes, p[0]!);
  const right = toFace(axes, p[16]!);
  const half = Math.max((right[0] - left[0]) / 2, 1e-3);
  return {
    axes,
    yaw: (nose[0] - (left[0] + right[0]) / 2) / half,
    pitch: nose[1] / axes.iod,
    roll: Math.atan2(axes.u[1], axes.u[0]),
  };
}

/** The mouth of one frame, measured (all in eye distances of that frame). */
export interface MouthMeasure {
  /** Gap between the inner lips (mean of the three pairs), along the face's vertical. */
  gap: number;
  /** Corner to corner (48–54). */
  width: number;
  /** Upper lip: outer top (50–52) to inner (61–63). */
  upperLip: number;
  /** Lower lip: inner (65–67) to outer bottom (56–58). */
  lowerLip: number;
  /** Chin (8) below the nose tip (30). */
  chin: number;
}

/** Measures the mouth of the face whose 68 points are `points`. */
export function measureMouth(points: Float32Array | Float64Array): MouthMeasure {
  const p = facePoints(points);
  const axes = faceAxes(p);
  const down = (i: number) => toFace(axes, p[i]!)[1];
  const mean = (...indices: number[]) => indices.reduce((sum, i) => sum + down(i), 0) / indices.length;
  const { iod } = axes;
  return {
    gap: Math.max(0, mean(67, 66, 65) - mean(61, 62, 63)) / iod,
    width: axes.mouthWidth / iod,
    upperLip: (mean(61, 62, 63) - mean(50, 51, 52)) / iod,
    lowerLip: (mean(56, 57, 58) - mean(65, 66, 67)) / iod,
    chin: (down(8) - down(30)) / iod,
  };
}

/** The clip's relaxed closed mouth, the reference every frame's mouth is measured against. */
export type RestMouth = MouthMeasure;

/** The parameters of `MouthShape` that a frame's mouth shows (see {@link shapeOf}). */
export interface MeasuredShape {
  open: number;
  width: number;
  round: number;
  /** Lips together (1) to apart. */
  closed: number;
  /** Lips pressed and thinned (P, B, M). */
  press: number;
  /** The lower lip tucked under the upper teeth (F, V). */
  teeth: number;
}

/**
 * A frame's mouth in the lip-sync track's terms, relative to the clip's relaxed closed mouth `rest`, inverting the
 * photo renderer's motion model (`moveFace`): `open` 1 parts the lips by {@link MAX_OPENING} mouth widths, `width` 1
 * spreads the mouth by 18 %, `round` 1 narrows it by 34 %; pressed lips are thinner than at rest, and in F/V the
 * lower lip is thinner (rolled in) while the lips stay nearly closed.
 */
export function shapeOf(mouth: MouthMeasure, rest: RestMouth): MeasuredShape {
  const clamp = (v: number, hi = 1) => Math.max(0, Math.min(hi, v));
  const gap = Math.max(0, mouth.gap - rest.gap);
  const open = clamp(gap / (MAX_OPENING * rest.width), 1.2);
  const stretch = mouth.width / rest.width - 1;
  const thinner = (rest.upperLip + rest.lowerLip - mouth.upperLip - mouth.lowerLip) / Math.max(rest.upperLip + rest.lowerLip, 1e-3);
  const lowerThinner = (rest.lowerLip - mouth.lowerLip) / Math.max(rest.lowerLip, 1e-3);
  const closed = clamp(1 - gap / (0.025 * rest.width));
  return {
    open,
    width: clamp(stretch / 0.18),
    round: clamp(-stretch / 0.34),
    closed,
    press: clamp(closed * (thinner - 0.1) / 0.3),
    teeth: clamp((1 - clamp(open / 0.35)) * (lowerThinner - 0.15) / 0.35),
  };
}
