/**
 * A small 2D painter in TypeScript with a canvas's own calls, for shapes drawn every frame: the mouth (see
 * FrameRenderer). On the canvas each such frame cost the drawing calls (native, recorded), the replay when the pixels
 * were read back, and a fresh buffer for them (0.26 ms a 1280×720 frame's mouth in process, against 0.18 here); here
 * the pixels go into a buffer this painter keeps.
 *
 * It paints what the mouth needs: paths of lines, quadratic and cubic curves, full or partial ellipses and rounded
 * rectangles, filled (non-zero, the exact anti-aliased area of path-coverage.ts, for paths whose subpaths do not
 * overlap one another) or stroked (round caps and joins: every pixel within half the line width of the path, its
 * coverage the part of the pixel's width the line covers across it), in solid colours (`#rgb`, `#rrggbb`,
 * `rgb(…)`, `rgba(…)`), under a transform and a clip (the coverage of the paths clipped to, multiplied), with
 * `save`/`restore`. Pixels are premultiplied RGBA words as the canvas stores them (see compositor.ts), composed
 * source-over. Anything else (gradients, other caps) throws: the painter draws what it was asked or nothing.
 */
import { parseHex } from '../color.js';
import type { Ctx, ShapeCanvas } from '../layout.js';
import { union } from '../boxes.js';
import { over, scaled, type Box } from '../compositor.js';
import { Affine } from './affine.js';
import { flattenCubic, flattenQuadratic } from './flatten.js';
import { addLine, coveredArea } from './path-coverage.js';

/** How far (pixels) a flattened curve or arc may stray from the true one. */
const TOLERANCE = 0.02;

/** A solid colour: red, green and blue 0–255, alpha 0–1. */
type Rgba = [number, number, number, number];

/** One flattened subpath: points in pixels, x and y after one another, and whether it was closed. */
interface Subpath {
  points: number[];
  closed: boolean;
}

/** What `save` keeps and `restore` brings back. */
interface PainterState {
  transform: [number, number, number, number, number, number];
  fillStyle: Ctx['fillStyle'];
  strokeStyle: Ctx['strokeStyle'];
  lineWidth: number;
  lineCap: Ctx['lineCap'];
  lineJoin: Ctx['lineJoin'];
  clip: Float32Array | undefined;
}

/** Paints into `width × height` premultiplied RGBA words of its own (see the module comment). */
export class PixelPainter extends Affine implements ShapeCanvas {
  fillStyle: Ctx['fillStyle'] = '#000000';
  strokeStyle: Ctx['strokeStyle'] = '#000000';
  lineWidth = 1;
  lineCap: Ctx['lineCap'] = 'butt';
  lineJoin: Ctx['lineJoin'] = 'miter';
  /** The pixels, row after row, `width` words a row (the buffer may be longer). */
  pixels = new Uint32Array(0);
  width = 0;
  height = 0;
  private subpaths: Subpath[] = [];
  /** The subpath lines are added to; none before a moveTo or after a closePath. */
  private open: Subpath | undefined;
  /** The current point, in pixels (NaN before any). */
  private x = NaN;
  private y = NaN;
  /** Each pixel's clip (0 to 1), none when nothing is clipped. */
  private clipMask: Float32Array | undefined;
  private readonly stack: PainterState[] = [];
  /** The cells a fill's or a clip's lines are summed in (see path-coverage.ts's addLine), zeros between uses. */
  private cells = new Float32Array(0);
  /** A stroke's coverage per pixel, zero outside the stroke being painted. */
  private strokeCoverage = new Float32Array(0);
  /** {@link to}, bound: what the curves' lines go to. */
  private readonly toPixel = (x: number, y: number): void => this.to(x, y);
  /** Clip masks no longer in use, for the next {@link clip}. */
  private readonly freeMasks: Float32Array[] = [];
  /** Style strings seen, as premultiplied words (styles repeat from frame to frame). */
  private readonly colours = new Map<string, number>();

  /**
   * Starts a picture of `width × height`: every pixel transparent, the canvas's default state (identity transform,
   * black, line width 1, butt caps, no clip) and no path.
   */
  reset(width: number, height: number): void {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) throw new RangeError(`cannot paint ${width}×${height} pixels`);
    this.width = width;
    this.height = height;
    if (this.pixels.length < width * height) this.pixels = new Uint32Array(width * height);
    else this.pixels.fill(0, 0, width * height);
    this.setTransform(1, 0, 0, 1, 0, 0);
    this.fillStyle = this.strokeStyle = '#000000';
    this.lineWidth = 1;
    this.lineCap = 'butt';
    this.lineJoin = 'miter';
    const masks = [this.clipMask, ...this.stack.map((state) => state.clip)];
    this.clipMask = undefined;
    this.stack.length = 0;
    for (const mask of masks) this.release(mask);
    this.beginPath();
  }

  save(): void {
    const { fillStyle, strokeStyle, lineWidth, lineCap, lineJoin, clipMask } = this;
    this.stack.push({ transform: this.matrix(), fillStyle, strokeStyle, lineWidth, lineCap, lineJoin, clip: clipMask });
  }

  restore(): void {
    const state = this.stack.pop();
    if (!state) return;
    this.setTransform(...state.transform);
    ({ fillStyle: this.fillStyle, strokeStyle: this.strokeStyle, lineWidth: this.lineWidth, lineCap: this.lineCap, lineJoin: this.lineJoin } = state);
    const narrowed = this.clipMask;
    this.clipMask = state.clip;
    // A clip set since the save is no one's any more.
    if (narrowed !== state.clip) this.release(narrowed);
  }

  beginPath(): void {
    this.subpaths = [];
    this.open = undefined;
    this.x = this.y = NaN;
  }

  moveTo(x: number, y: number): void {
    const [px, py] = this.apply(x, y);
    this.moveToPixel(px, py);
  }

  lineTo(x: number, y: number): void {
    const [px, py] = this.apply(x, y);
    this.to(px, py);
  }

  quadraticCurveTo(cpx: number, cpy: number, x: number, y: number): void {
    this.ensurePoint(cpx, cpy);
    const [x1, y1] = this.apply(cpx, cpy);
    const [x2, y2] = this.apply(x, y);
    flattenQuadratic(this.x, this.y, x1, y1, x2, y2, TOLERANCE, this.toPixel);
  }

  bezierCurveTo(cp1x: number, cp1y: number, cp2x: number, cp2y: number, x: number, y: number): void {
    this.ensurePoint(cp1x, cp1y);
    const [x1, y1] = this.apply(cp1x, cp1y);
    const [x2, y2] = this.apply(cp2x, cp2y);
    const [x3, y3] = this.apply(x, y);
    flattenCubic(this.x, this.y, x1, y1, x2, y2, x3, y3, TOLERANCE, this.toPixel);
  }

  closePath(): void {
    const open = this.open;
    if (!open) return;
    open.closed = true;
    this.open = undefined;
    // The current point goes back to the subpath's start; a line from it starts a new subpath there.
    this.x = open.points[0]!;
    this.y = open.points[1]!;
  }

  /**
   * An elliptical arc (clockwise from `startAngle` to `endAngle` unless `counterclockwise`), joined by a line to the
   * current point as on a canvas.
   */
  ellipse(x: number, y: number, radiusX: number, radiusY: number, rotation: number, startAngle: number, endAngle: number, counterclockwise = false): void {
    if (radiusX < 0 || radiusY < 0) throw new RangeError('ellipse(): negative radius');
    const full = 2 * Math.PI;
    let sweep = endAngle - startAngle;
    if (!counterclockwise) sweep = sweep >= full ? full : ((sweep % full) + full) % full;
    else sweep = -sweep >= full ? -full : -((((-sweep) % full) + full) % full);
    const cos = Math.cos(rotation);
    const sin = Math.sin(rotation);
    const point = (angle: number): [number, number] => {
      const ex = radiusX * Math.cos(angle);
      const ey = radiusY * Math.sin(angle);
      return this.apply(x + ex * cos - ey * sin, y + ex * sin + ey * cos);
    };
    // Pieces whose chords stray at most TOLERANCE from the arc at its largest radius in pixels.
    const radius = Math.max(radiusX, radiusY) * this.scaleFactor();
    const step = radius > TOLERANCE ? 2 * Math.acos(1 - TOLERANCE / radius) : Math.PI / 2;
    const n = Math.max(1, Math.min(1000, Math.ceil(Math.abs(sweep) / step)));
    // With a current point (a subpath, or the start of one just closed), a line joins it to the arc, as on a canvas.
    const [sx, sy] = point(startAngle);
    if (Number.isNaN(this.x)) this.moveToPixel(sx, sy);
    else this.to(sx, sy);
    for (let i = 1; i <= n; i++) {
      const [px, py] = point(startAngle + (sweep * i) / n);
      this.to(px, py);
    }
  }

  /**
   * A closed rectangle with rounded corners (radii top-left, top-right, bottom-right, bottom-left, as a canvas takes
   * them), of a positive or zero width and height.
   */
  roundRect(x: number, y: number, w: number, h: number, radii: Parameters<Ctx['roundRect']>[4] = 0): void {
    if (!(w >= 0 && h >= 0)) throw new RangeError('roundRect(): only a positive or zero width and height are painted');
    const list: unknown[] = typeof radii === 'number' ? [radii] : Symbol.iterator in Object(radii) ? [...(radii as Iterable<unknown>)] : [radii];
    const values = list.map((r) => {
      if (typeof r !== 'number') throw new TypeError('roundRect(): only numeric radii are painted');
      if (!(r >= 0)) throw new RangeError('roundRect(): radii must be non-negative');
      return r;
    });
    if (values.length < 1 || values.length > 4) throw new RangeError('roundRect(): one to four radii');
    // As a canvas: 1 → all, 2 → (tl, br) (tr, bl), 3 → tl, (tr, bl), br, 4 → tl, tr, br, bl.
    const [a, b = a, c = a, d = b] = values as [number, number?, number?, number?];
    let [tl, tr, br, bl] = values.length === 2 ? [a, b, a, b] : values.length === 3 ? [a, b, c, b] : [a, b, c, d];
    // Radii too large for the sides scale down together.
    const scale = Math.min(1, w / Math.max(tl + tr, bl + br, 1e-12), h / Math.max(tl + bl, tr + br, 1e-12));
    [tl, tr, br, bl] = [tl * scale, tr * scale, br * scale, bl * scale];
    const corner = (cx: number, cy: number, r: number, from: number) => {
      if (r > 0) this.ellipse(cx, cy, r, r, 0, from, from + Math.PI / 2);
      else this.lineTo(cx, cy);
    };
    this.moveTo(x + tl, y);
    this.lineTo(x + w - tr, y);
    corner(x + w - tr, y + tr, tr, -Math.PI / 2);
    this.lineTo(x + w, y + h - br);
    corner(x + w - br, y + h - br, br, 0);
    this.lineTo(x + bl, y + h);
    corner(x + bl, y + h - bl, bl, Math.PI / 2);
    this.lineTo(x, y + tl);
    corner(x + tl, y + tl, tl, Math.PI);
    this.closePath();
    // As on a canvas, the current point is then the rectangle's corner.
    this.moveTo(x, y);
  }

  /** Fills the path (non-zero) with {@link fillStyle}. */
  fill(...rule: unknown[]): void {
    checkNonZero('fill', rule);
    const source = this.colour(this.fillStyle);
    if (source === 0) return;
    this.covered((from, to, coverage, clip) => this.paint(from, to, coverage, source, clip));
  }

  /** Strokes the path with {@link strokeStyle}, {@link lineWidth} wide, with round caps and joins. */
  stroke(...path: unknown[]): void {
    if (path.length > 0) throw new TypeError('stroke(): a Path2D is not painted, only the current path');
    if (this.lineCap !== 'round' || this.lineJoin !== 'round') throw new Error(`stroke(): only round caps and joins are painted, not ${this.lineCap} caps and ${this.lineJoin} joins`);
    const source = this.colour(this.strokeStyle);
    const half = (this.lineWidth * this.scaleFactor()) / 2;
    if (!(half > 0) || source === 0) return;
    const { width, height } = this;
    if (this.strokeCoverage.length < width * height) this.strokeCoverage = new Float32Array(width * height);
    const coverage = this.strokeCoverage;
    const reach = half + 0.5;
    let box: Box | undefined;
    for (const { points, closed } of this.subpaths) {
      const count = points.length / 2;
      // A subpath of one point paints nothing, as on a canvas (one of two equal points, a round dot).
      if (count < 2) continue;
      const segments = closed ? count : count - 1;
      for (let s = 0; s < segments; s++) {
        const ax = points[2 * s]!;
        const ay = points[2 * s + 1]!;
        const bx = points[(2 * (s + 1)) % points.length]!;
        const by = points[(2 * (s + 1) + 1) % points.length]!;
        const x0 = Math.max(0, Math.floor(Math.min(ax, bx) - reach));
        const y0 = Math.max(0, Math.floor(Math.min(ay, by) - reach));
        const x1 = Math.min(width, Math.ceil(Math.max(ax, bx) + reach));
        const y1 = Math.min(height, Math.ceil(Math.max(ay, by) + reach));
        if (x0 >= x1 || y0 >= y1) continue;
        box = box ? union(box, { x0, y0, x1, y1 }) : { x0, y0, x1, y1 };
        const dx = bx - ax;
        const dy = by - ay;
        const length2 = dx * dx + dy * dy;
        for (let y = y0; y < y1; y++) {
          const py = y + 0.5 - ay;
          for (let x = x0; x < x1; x++) {
            const px = x + 0.5 - ax;
            // Distance from the pixel's centre to the segment.
            const t = length2 > 0 ? Math.max(0, Math.min(1, (px * dx + py * dy) / length2)) : 0;
            const ex = px - t * dx;
            const ey = py - t * dy;
            const distance = Math.sqrt(ex * ex + ey * ey);
            if (distance >= reach) continue;
            // The part of the pixel's width, across the line, that the line covers.
            const c = Math.min(distance + 0.5, half) - Math.max(distance - 0.5, -half);
            const at = y * width + x;
            if (c > coverage[at]!) coverage[at] = Math.min(1, c);
          }
        }
      }
    }
    if (!box) return;
    const clip = this.clipMask;
    for (let y = box.y0; y < box.y1; y++) {
      for (let x = box.x0; x < box.x1; x++) {
        const at = y * width + x;
        const c = coverage[at]!;
        if (c === 0) continue;
        coverage[at] = 0;
        this.paint(at, at + 1, c, source, clip);
      }
    }
  }

  /** Narrows the clip to the path (non-zero). */
  clip(...rule: unknown[]): void {
    checkNonZero('clip', rule);
    const size = this.width * this.height;
    let mask = this.freeMasks.pop();
    if (!mask || mask.length < size) mask = new Float32Array(size);
    else mask.fill(0, 0, size);
    // Coverage is already multiplied by the clip so far.
    this.covered((from, to, coverage, clip) => {
      for (let at = from; at < to; at++) mask[at] = clip ? coverage * clip[at]! : coverage;
    });
    this.clipMask = mask;
  }

  /** The transform's `[a, b, c, d, e, f]`. */
  private matrix(): [number, number, number, number, number, number] {
    return [...this.m] as [number, number, number, number, number, number];
  }

  /** How much the transform scales lengths (the square root of its area factor). */
  private scaleFactor(): number {
    const [a, b, c, d] = this.m as [number, number, number, number];
    return Math.sqrt(Math.abs(a * d - b * c));
  }

  /** Before a curve: with no current point, the curve starts at its first control point, as on a canvas. */
  private ensurePoint(x: number, y: number): void {
    if (Number.isNaN(this.x)) this.moveTo(x, y);
  }

  /** Starts a subpath at (`x`, `y`) in pixels. */
  private moveToPixel(x: number, y: number): void {
    this.open = { points: [x, y], closed: false };
    this.subpaths.push(this.open);
    this.x = x;
    this.y = y;
  }

  /** A line from the current point to (`x`, `y`) in pixels; without a subpath open, one starts at the current point (or there). */
  private to(x: number, y: number): void {
    if (!this.open) this.moveToPixel(Number.isNaN(this.x) ? x : this.x, Number.isNaN(this.y) ? y : this.y);
    this.open!.points.push(x, y);
    this.x = x;
    this.y = y;
  }

  /**
   * Calls `use` for each run of pixels (`from` to `to`, end exclusive) the path covers alike (non-zero, every subpath
   * closed), with their covered area (0 to 1) and the clip (to multiply it by), row by row.
   */
  private covered(use: (from: number, to: number, coverage: number, clip: Float32Array | undefined) => void): void {
    const { width, height, subpaths } = this;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const { points } of subpaths) {
      if (points.length < 4) continue;
      for (let i = 0; i < points.length; i += 2) {
        x0 = Math.min(x0, points[i]!);
        x1 = Math.max(x1, points[i]!);
        y0 = Math.min(y0, points[i + 1]!);
        y1 = Math.max(y1, points[i + 1]!);
      }
    }
    // Whole pixels, within the picture (lines left of it count in its first column, see addLine).
    const box = { x0: Math.max(0, Math.floor(x0)), y0: Math.max(0, Math.floor(y0)), x1: Math.min(width, Math.ceil(x1) + 1), y1: Math.min(height, Math.ceil(y1)) };
    if (!(box.x0 < box.x1 && box.y0 < box.y1)) return;
    const stride = box.x1 - box.x0 + 1;
    const rows = box.y1 - box.y0;
    if (this.cells.length < stride * rows) this.cells = new Float32Array(stride * rows);
    const { cells } = this;
    for (const { points } of subpaths) {
      const n = points.length;
      if (n < 4) continue;
      for (let i = 0; i < n; i += 2) {
        const j = i + 2 < n ? i + 2 : 0;
        if (points[i + 1] !== points[j + 1]) addLine(cells, stride, box, points[i]!, points[i + 1]!, points[j]!, points[j + 1]!);
      }
    }
    const clip = this.clipMask;
    for (let y = box.y0; y < box.y1; y++) {
      const row = (y - box.y0) * stride - box.x0;
      const at0 = y * width;
      let sum = 0;
      let x = box.x0;
      while (x < box.x1) {
        sum += cells[row + x]!;
        cells[row + x] = 0;
        // The pixels up to the next edge (a cell a line added to) are covered alike.
        let end = x + 1;
        while (end < box.x1 && cells[row + end] === 0) end++;
        const area = coveredArea(sum);
        if (area > 0) use(at0 + x, at0 + end, area, clip);
        x = end;
      }
      // The cell past the row's last pixel.
      cells[row + box.x1] = 0;
    }
  }

  /**
   * Composes `source` (a premultiplied colour) source-over on pixels `from` to `to` (end exclusive), at `coverage` (0 to
   * 1) of its strength, times `clip` where there is one.
   */
  private paint(from: number, to: number, coverage: number, source: number, clip: Float32Array | undefined): void {
    const { pixels } = this;
    if (clip) {
      const opaque = source >>> 24 === 255;
      for (let at = from; at < to; at++) {
        const inside = clip[at]!;
        if (inside === 0) continue;
        const strength = (coverage * inside * 255 + 0.5) | 0;
        if (strength >= 255) pixels[at] = opaque ? source : over(source, pixels[at]!);
        else if (strength > 0) pixels[at] = over(scaled(source, strength), pixels[at]!);
      }
      return;
    }
    const strength = (coverage * 255 + 0.5) | 0;
    if (strength <= 0) return;
    const word = strength >= 255 ? source : scaled(source, strength);
    if (word >>> 24 === 255) pixels.fill(word, from, to);
    else for (let at = from; at < to; at++) pixels[at] = over(word, pixels[at]!);
  }

  /** Gives a clip mask no state holds any more back, for a later {@link clip}. */
  private release(mask: Float32Array | undefined): void {
    if (mask && !this.freeMasks.includes(mask)) this.freeMasks.push(mask);
  }

  /** `style` (see the module comment) as a premultiplied RGBA word. */
  private colour(style: Ctx['fillStyle']): number {
    if (typeof style !== 'string') throw new TypeError('PixelPainter paints solid colours only');
    let word = this.colours.get(style);
    if (word === undefined) {
      word = premultiplied(parseColour(style));
      if (this.colours.size > 256) this.colours.clear();
      this.colours.set(style, word);
    }
    return word;
  }
}

/** `#rgb`, `#rrggbb`, `rgb(r,g,b)` or `rgba(r,g,b,a)` as red, green, blue (0–255) and alpha (0–1). */
export function parseColour(style: string): Rgba {
  const text = style.trim().toLowerCase();
  if (/^#([0-9a-f]{3}|[0-9a-f]{6})$/.test(text)) return [...parseHex(text), 1];
  const fn = /^rgba?\(\s*([^)]*)\)$/.exec(text);
  const parts = fn?.[1]!.split(/\s*,\s*/).map(Number);
  if (parts && (parts.length === 3 || parts.length === 4) && parts.every((v) => Number.isFinite(v))) {
    const [r, g, b, a = 1] = parts as [number, number, number, number?];
    const channel = (v: number) => Math.round(Math.max(0, Math.min(255, v)));
    return [channel(r), channel(g), channel(b), Math.max(0, Math.min(1, a))];
  }
  throw new TypeError(`PixelPainter cannot read the colour ${JSON.stringify(style)}`);
}

/** `colour` as a premultiplied RGBA word (little-endian: red in the low byte), each channel rounded. */
function premultiplied([r, g, b, a]: Rgba): number {
  return ((Math.round(255 * a) << 24) | (Math.round(b * a) << 16) | (Math.round(g * a) << 8) | Math.round(r * a)) >>> 0;
}

/** Fills and clips take the current path and the non-zero rule only. */
function checkNonZero(call: string, rule: unknown[]): void {
  if (rule.length > 1 || (rule.length === 1 && rule[0] !== 'nonzero' && rule[0] !== undefined)) {
    throw new TypeError(`${call}(): only the current path with the non-zero rule is painted`);
  }
}

