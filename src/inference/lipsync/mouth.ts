/**
 * Per-video-frame mouth parameters: the contract between audio analysis (the viseme model)
 * and drawing (the avatar renderer). All values are in [0, 1].
 */
export interface MouthShape {
  /** Jaw opening: 0 closed, 1 wide open (AA). */
  open: number;
  /** Lip spread: 0 neutral, 1 wide smile-like spread (EE, SS). */
  width: number;
  /** Lip rounding/protrusion: 0 neutral, 1 rounded (OO, W). */
  round: number;
  /** Lips pressed together (P, B, M): 1 fully pressed. */
  closed: number;
  /** Upper teeth on the lower lip (F, V): 1 fully. */
  teeth: number;
  /**
   * How firmly closed lips press together, rolled in and thinned (P, B, M): 0 relaxed (rest), 1 pressed.
   * Only drawn with `closed`; absent means 0, so analyzers written before it still work.
   */
  press?: number;
  /** Tongue tip raised behind the upper teeth (L, TH), seen in an open mouth: 0 low, 1 raised. Absent means 0. */
  tongue?: number;
}

/** The resting, closed mouth used in silence. */
export const RESTING_MOUTH: Readonly<MouthShape> = Object.freeze({ open: 0, width: 0, round: 0, closed: 1, teeth: 0, press: 0, tongue: 0 });

/** How close to {@link RESTING_MOUTH} every parameter must be for a mouth to count as resting. */
export const MOUTH_REST_TOLERANCE = 0.02;

/**
 * Whether `mouth` is the resting mouth: closed, and every other parameter (an absent `press` counts as 0) within
 * {@link MOUTH_REST_TOLERANCE} of rest. Photo and video avatars show their own mouth there, not a drawn one.
 */
export function isRestingMouth(mouth: MouthShape): boolean {
  return (
    mouth.open < MOUTH_REST_TOLERANCE &&
    mouth.width < MOUTH_REST_TOLERANCE &&
    mouth.round < MOUTH_REST_TOLERANCE &&
    mouth.teeth < MOUTH_REST_TOLERANCE &&
    (mouth.press ?? 0) < MOUTH_REST_TOLERANCE &&
    mouth.closed > 1 - MOUTH_REST_TOLERANCE
  );
}

/** The parameters of a {@link MouthShape}, in a fixed order (packing, filtering). */
export const MOUTH_KEYS = ['open', 'width', 'round', 'closed', 'teeth', 'press', 'tongue'] as const;
export type MouthKey = (typeof MOUTH_KEYS)[number];

/** The shape whose parameters are `values` in {@link MOUTH_KEYS} order (as many values as keys). */
export function mouthShapeOf(values: ArrayLike<number>): MouthShape {
  const shape = {} as Record<MouthKey, number>;
  MOUTH_KEYS.forEach((key, i) => (shape[key] = values[i]!));
  return shape;
}

/** Turns a recording into one {@link MouthShape} per video frame. */
export interface MouthTrackAnalyzer {
  /**
   * @param audioPath any file ffmpeg can decode
   * @param fps video frame rate; the result has `ceil(duration * fps)` entries
   * @param durationSec the recording's duration in seconds when the caller has already probed it
   *   (the lip-sync engine passes the job's): it sets the number of entries, and the analyzer need
   *   not probe the file again
   */
  analyze(audioPath: string, fps: number, signal?: AbortSignal, durationSec?: number): Promise<MouthShape[]>;
}
