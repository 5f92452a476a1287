import type { Rgb } from './face-palette.js';
import { unit } from './local-curve.js';

/**
 * The upper front teeth, from the middle out, as a share of the mouth's width (corner to corner): each tooth's outer
 * edge (the central incisors about 0.16 each, then the laterals, the canines and a premolar, narrower as the arch
 * turns away), its length against the central incisors' and its light (teeth further back lie in the mouth's shade).
 */
const UPPER_TEETH = [
  { edge: 0.16, length: 1, light: 1 },
  { edge: 0.285, length: 0.86, light: 0.88 },
  { edge: 0.37, length: 0.92, light: 0.62 },
  { edge: 0.44, length: 0.78, light: 0.4 },
  { edge: 0.52, length: 0.7, light: 0.26 },
] as const;
/** The lower incisors and canines, narrower. */
const LOWER_TEETH = [
  { edge: 0.09, length: 1, light: 0.8 },
  { edge: 0.18, length: 1, light: 0.72 },
  { edge: 0.27, length: 0.95, light: 0.5 },
  { edge: 0.36, length: 0.85, light: 0.32 },
] as const;

type Tooth = (typeof UPPER_TEETH)[number] | (typeof LOWER_TEETH)[number];

/** What {@link PaintedTeeth} paints with, for one frame. */
export interface PaintedTeethInput {
  /** The photo's mouth width in frame pixels. */
  mouthWidth: number;
  /** The opening's gap between the inner lips in its middle, pixels. */
  centreGap: number;
  /** F/V: the upper teeth reach down onto the lower lip (0–1). */
  teeth: number;
  /** The teeth's colour (lit, unshaded). */
  colour: Rgb;
  /** The photo's grain: the spread of its luma about a pixel's neighbours (skin), 0–255. */
  grain: number;
}

/**
 * Teeth painted for a photo whose mouth does not show its own: the upper teeth one by one under the upper lip
 * (central incisors, laterals, canines, a premolar: each rounded at its biting edge and its sides, darker the further
 * back it stands, the lip's shadow on their top), the lower ones on the lower lip once the mouth opens wide; edges as
 * soft as the photo's, gaps between teeth as sharp as it resolves them, and the photo's grain fixed to the teeth (it
 * moves with them, it does not crawl).
 */
export class PaintedTeeth {
  private readonly upperLength: number;
  private readonly lowerLength: number;
  private readonly soft: number;
  private readonly line: number;
  private readonly gapDepth: number;

  constructor(private readonly input: PaintedTeethInput) {
    const W = input.mouthWidth;
    this.upperLength = 0.14 * W;
    this.lowerLength = 0.06 * W * unit((input.centreGap - 0.2 * W) / (0.15 * W));
    this.soft = Math.max(0.8, W / 50);
    this.line = Math.max(0.5, 0.008 * W);
    // The gaps between teeth show as much as the photo resolves them: faint in a small mouth.
    this.gapDepth = 0.25 * unit((W - 30) / 120);
  }

  /**
   * The tooth at `aside` pixels from the mouth's middle, `fromTop` below the upper lip and `fromBottom` above the
   * lower one (`gap` apart there): its colour into `out`, and how much of the pixel it covers (0: none, the cavity).
   */
  paint(aside: number, fromTop: number, fromBottom: number, gap: number, out: [number, number, number]): number {
    const { mouthWidth: W, teeth, colour, grain } = this.input;
    const x = Math.abs(aside) / W;
    const upper = toothAt(UPPER_TEETH, x);
    let cover = 0;
    let shade = 0;
    let along = fromTop;
    let side = 0;
    let toothWidth = 0;
    if (upper) {
      const { tooth, u } = upper;
      // The biting edge: each tooth's length, rounded off towards its sides; F/V reaches the lower lip.
      const edge = Math.max(this.upperLength * tooth.length * (1 - 0.18 * (2 * u - 1) ** 4), teeth * (gap + 1));
      cover = unit((edge - fromTop) / this.soft + 0.5);
      // The upper lip's shadow on the teeth's top; the biting edge a little greyer (translucent).
      shade = tooth.light * (0.55 + 0.45 * unit(fromTop / (0.45 * this.upperLength))) * (1 - 0.12 * unit((fromTop - 0.7 * edge) / (0.3 * edge)));
      side = u;
      toothWidth = upper.width;
    }
    if (cover < 1 && this.lowerLength > 0.3) {
      const lower = toothAt(LOWER_TEETH, x);
      if (lower) {
        const { tooth, u } = lower;
        const edge = this.lowerLength * tooth.length * (1 - 0.25 * (2 * u - 1) ** 4);
        const lowerCover = unit((edge - fromBottom) / this.soft + 0.5) * (1 - cover);
        if (lowerCover > 0 && cover === 0) {
          shade = tooth.light * (0.7 + 0.3 * unit(fromBottom / (0.5 * edge)));
          side = u;
          toothWidth = lower.width;
          along = fromBottom;
        }
        cover += lowerCover;
      }
    }
    if (cover <= 0) return 0;
    // Each tooth rounds away at its sides, and the gap between two is a soft dark line.
    const fromGap = Math.min(side, 1 - side) * toothWidth * W;
    shade *= (1 - 0.1 * (2 * side - 1) ** 4) * (1 - this.gapDepth * Math.exp(-((fromGap / this.line) ** 2)));
    // Uniform noise of the grain's spread (a uniform value in [−1, 1] spreads by 0.58).
    const noise = 1.7 * grain * hash(Math.round(aside * 2), Math.round(along * 2));
    out[0] = colour[0] * shade + noise;
    out[1] = colour[1] * shade + noise;
    out[2] = colour[2] * shade + noise;
    return cover;
  }
}

/** The tooth of `row` at `x` mouth widths from the middle, where across it `x` lies (0: its inner side, 1: its outer) and its width. */
function toothAt(row: readonly Tooth[], x: number): { tooth: Tooth; u: number; width: number } | undefined {
  let inner = 0;
  for (const tooth of row) {
    if (x < tooth.edge) return { tooth, u: (x - inner) / (tooth.edge - inner), width: tooth.edge - inner };
    inner = tooth.edge;
  }
  return undefined;
}

/** A fixed pseudo-random value in [−1, 1] for integer coordinates (`i`, `j`). */
export function hash(i: number, j: number): number {
  let h = Math.imul(i, 374761393) + Math.imul(j, 668265263);
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return ((h & 0xffff) / 0xffff) * 2 - 1;
}
