import type { AvatarLook } from '../../domain/avatar/look.js';
import type { SKRSContext2D } from '@napi-rs/canvas';

/** The 2D context the drawing parts paint on. */
export type Ctx = SKRSContext2D;

/**
 * The calls a shape drawn every frame (the mouth, see parts/mouth.ts) is painted with: a canvas's 2D context has them,
 * and so does raster/pixel-painter.ts's `PixelPainter`, which paints them in TypeScript.
 */
export type ShapeCanvas = Pick<
  Ctx,
  | 'save'
  | 'restore'
  | 'translate'
  | 'rotate'
  | 'beginPath'
  | 'moveTo'
  | 'lineTo'
  | 'quadraticCurveTo'
  | 'bezierCurveTo'
  | 'closePath'
  | 'ellipse'
  | 'roundRect'
  | 'fill'
  | 'stroke'
  | 'clip'
  | 'fillStyle'
  | 'strokeStyle'
  | 'lineWidth'
  | 'lineCap'
  | 'lineJoin'
>;

/** Every part draws in a 512×512 design space; the frame renderer scales it to the frame. */
export const DESIGN_SIZE = 512;

/**
 * How far down the torso reaches (design pixels): below the design square, to the bottom edge of the tallest
 * portrait frame (1920 high and 256 wide: the square scaled to the width fills 256 of 1920 rows, 7.5 squares).
 */
export const TORSO_BOTTOM = DESIGN_SIZE * 8;

/** Where the face parts sit, derived from the look (design pixels). */
export interface FaceLayout {
  /** Head centre and radii. */
  cx: number;
  cy: number;
  rx: number;
  ry: number;
  /** Eye centre height and the horizontal distance of each eye from `cx`. */
  eyeY: number;
  eyeDx: number;
  /** Mouth centre height. */
  mouthY: number;
  /** Nose tip height. */
  noseY: number;
  /** Top of the shoulders. */
  shoulderY: number;
  /** Half-width of the neck under the chin (it widens a little towards the collar). */
  neckHalfWidth: number;
}

/** The layout for `look`. */
export function faceLayout(look: AvatarLook): FaceLayout {
  const rx = 94 * look.head.width * (look.head.shape === 'round' ? 1.04 : 1);
  const ry = 114 * look.head.height * (look.head.shape === 'round' ? 0.94 : 1);
  const cx = DESIGN_SIZE / 2;
  // Shorter heads sit lower, so the chin (and the neck's length) stays about the same.
  const cy = 228 + (114 - ry) * 0.8;
  return {
    cx,
    cy,
    rx,
    ry,
    eyeY: cy + ry * 0.06,
    eyeDx: rx * 0.4 * look.eyes.spacing,
    noseY: cy + ry * 0.36,
    mouthY: cy + ry * 0.6,
    shoulderY: 396,
    neckHalfWidth: rx * 0.38,
  };
}
