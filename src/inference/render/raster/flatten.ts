/**
 * Curves cut into lines (pixels), each line within `flatness` pixels of the true curve: how path-coverage.ts's
 * PathCoverage and pixel-painter.ts's PixelPainter record a path's curves.
 */

/** Takes the end of each line, in order (the first line starts at the curve's start). */
export type LineTo = (x: number, y: number) => void;

/** The quadratic from (`x0`, `y0`) through control point (`x1`, `y1`) to (`x2`, `y2`), as lines to `line`. */
export function flattenQuadratic(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number, flatness: number, line: LineTo): void {
  // A quadratic's distance from its polyline of n pieces is at most |P0 − 2P1 + P2| / (4n²).
  const n = pieces(Math.hypot(x0 - 2 * x1 + x2, y0 - 2 * y1 + y2) / 4, flatness);
  for (let i = 1; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    line(u * u * x0 + 2 * u * t * x1 + t * t * x2, u * u * y0 + 2 * u * t * y1 + t * t * y2);
  }
}

/** The cubic from (`x0`, `y0`) with control points (`x1`, `y1`) and (`x2`, `y2`) to (`x3`, `y3`), as lines to `line`. */
export function flattenCubic(
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  x3: number,
  y3: number,
  flatness: number,
  line: LineTo,
): void {
  // A cubic's distance from its polyline of n pieces is at most 3/4 of its largest second difference / n².
  const dd = Math.max(Math.hypot(x0 - 2 * x1 + x2, y0 - 2 * y1 + y2), Math.hypot(x1 - 2 * x2 + x3, y1 - 2 * y2 + y3));
  const n = pieces((dd * 3) / 4, flatness);
  for (let i = 1; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    const a = u * u * u;
    const b = 3 * u * u * t;
    const c = 3 * u * t * t;
    const d = t * t * t;
    line(a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3);
  }
}

/** Lines a curve is cut into for a deviation bound of `reach / n²`: within `flatness`, at least 1, at most 1000. */
function pieces(reach: number, flatness: number): number {
  return Math.min(1000, Math.max(1, Math.ceil(Math.sqrt(reach / flatness))));
}
