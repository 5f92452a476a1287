/**
 * A feature's own coordinates (along the line from one corner to the other, and across it) and the
 * piecewise-linear curves of its contour in them: the painters of the mouth's inside and of the
 * eyelids ask, per pixel, how far it lies below one curve and above another.
 */
export class LocalFrame {
  readonly ox: number;
  readonly oy: number;
  readonly ux: number;
  readonly uy: number;

  /** The frame whose origin is halfway between points `from` and `to` of `points` (`x, y` each), along them. */
  constructor(points: Float64Array, from: number, to: number) {
    const ax = points[2 * from]!;
    const ay = points[2 * from + 1]!;
    const bx = points[2 * to]!;
    const by = points[2 * to + 1]!;
    const length = Math.hypot(bx - ax, by - ay) || 1;
    this.ox = (ax + bx) / 2;
    this.oy = (ay + by) / 2;
    this.ux = (bx - ax) / length;
    this.uy = (by - ay) / length;
  }

  /** Distance along the feature of frame point (`x`, `y`). */
  along(x: number, y: number): number {
    return (x - this.ox) * this.ux + (y - this.oy) * this.uy;
  }

  /** Distance across (down) the feature of frame point (`x`, `y`). */
  across(x: number, y: number): number {
    return -(x - this.ox) * this.uy + (y - this.oy) * this.ux;
  }

  /** The curve through points `indices` of `points`, in this frame (sorted along it). */
  curve(points: Float64Array, indices: readonly number[]): Curve {
    const pairs = indices.map((i) => [this.along(points[2 * i]!, points[2 * i + 1]!), this.across(points[2 * i]!, points[2 * i + 1]!)] as const);
    pairs.sort((p, q) => p[0] - q[0]);
    return new Curve(
      pairs.map(([a]) => a),
      pairs.map(([, b]) => b),
    );
  }
}

/** A piecewise-linear function `b(a)` over `[start, end]`. */
export class Curve {
  constructor(
    private readonly as: number[],
    private readonly bs: number[],
  ) {}

  get start(): number {
    return this.as[0]!;
  }

  get end(): number {
    return this.as[this.as.length - 1]!;
  }

  /** `b` at `a` (clamped to the ends). */
  at(a: number): number {
    const { as, bs } = this;
    if (a <= as[0]!) return bs[0]!;
    for (let k = 1; k < as.length; k++) {
      if (a <= as[k]!) {
        const span = as[k]! - as[k - 1]!;
        const t = span > 1e-9 ? (a - as[k - 1]!) / span : 1;
        return bs[k - 1]! + (bs[k]! - bs[k - 1]!) * t;
      }
    }
    return bs[bs.length - 1]!;
  }
}

/** `value` clamped to [0, 1]. */
export const unit = (value: number): number => (value < 0 ? 0 : value > 1 ? 1 : value);

/** Blends colour (`r`, `g`, `b`) over the pixel at byte offset `o` of `pixels` with `alpha`. */
export function blendPixel(pixels: Uint8Array, o: number, r: number, g: number, b: number, alpha: number): void {
  if (alpha <= 0) return;
  const keep = 1 - alpha;
  pixels[o] = pixels[o]! * keep + r * alpha + 0.5;
  pixels[o + 1] = pixels[o + 1]! * keep + g * alpha + 0.5;
  pixels[o + 2] = pixels[o + 2]! * keep + b * alpha + 0.5;
}

/** The bounding box (clamped to the frame, whole pixels) of points `indices` of `points`, grown by `margin`. */
export function boxOf(points: Float64Array, indices: readonly number[], margin: number, width: number, height: number) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const i of indices) {
    x0 = Math.min(x0, points[2 * i]!);
    x1 = Math.max(x1, points[2 * i]!);
    y0 = Math.min(y0, points[2 * i + 1]!);
    y1 = Math.max(y1, points[2 * i + 1]!);
  }
  return {
    x0: Math.max(0, Math.floor(x0 - margin)),
    y0: Math.max(0, Math.floor(y0 - margin)),
    x1: Math.min(width - 1, Math.ceil(x1 + margin)),
    y1: Math.min(height - 1, Math.ceil(y1 + margin)),
  };
}
