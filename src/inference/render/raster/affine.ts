/**
 * A 2D affine transform set with a canvas's own calls (`setTransform`, `translate`, `rotate`), so that code which
 * places a part on a canvas (applyPartTransform, FrameRenderer's design transform) places points the same way in
 * TypeScript: PathCoverage records paths under it, FrameRenderer maps a part's bounds to frame pixels with it.
 */
export class Affine {
  /** The transform `[a, b, c, d, e, f]`, as a canvas's: x' = a·x + c·y + e, y' = b·x + d·y + f. */
  protected m = [1, 0, 0, 1, 0, 0];

  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void {
    this.m = [a, b, c, d, e, f];
  }

  translate(x: number, y: number): void {
    const [a, b, c, d, e, f] = this.m as [number, number, number, number, number, number];
    this.m = [a, b, c, d, e + a * x + c * y, f + b * x + d * y];
  }

  rotate(angle: number): void {
    const [a, b, c, d, e, f] = this.m as [number, number, number, number, number, number];
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    this.m = [a * cos + c * sin, b * cos + d * sin, c * cos - a * sin, d * cos - b * sin, e, f];
  }

  /** Point (`x`, `y`) under the transform. */
  apply(x: number, y: number): [number, number] {
    const [a, b, c, d, e, f] = this.m as [number, number, number, number, number, number];
    return [a * x + c * y + e, b * x + d * y + f];
  }
}
