import type { AvatarLook } from '../../../domain/avatar/look.js';
import type { MouthShape } from '../../lipsync/mouth.js';
import { shade, withAlpha } from '../color.js';
import type { FaceLayout, ShapeCanvas } from '../layout.js';

/**
 * The mouth's geometry in design pixels, derived from a {@link MouthShape}. Heights named for an edge are where
 * that edge is drawn at the mouth's centre line (the curves reach them exactly).
 */
export interface MouthGeometry {
  /** Half-width from the centre to each corner. */
  halfWidth: number;
  /** Height of the corners. */
  cornerY: number;
  /** The opening between the lips: the upper lip's and the lower lip's inner edge. */
  innerTop: number;
  innerBottom: number;
  /** Lip thicknesses at the centre. */
  upperLip: number;
  lowerLip: number;
  /** Roundness of the opening (bezier control spread), 0.48 lens to ~0.85 near-oval. */
  roundness: number;
  /** How far the chin drops (design pixels). */
  jawDrop: number;
  /** Edge of the upper front teeth, and top of the lower ones (seen where they lie inside the opening). */
  upperTeethEdge: number;
  lowerTeethTop: number;
  /** Half-width of the row of front teeth. */
  teethHalfWidth: number;
  /** Upper teeth resting on the tucked-up lower lip (F, V), 0 to 1. */
  teethOnLip: number;
  /** Top of the tongue at the centre. */
  tongueTop: number;
  /** Lips pressed together and rolled in (P, B, M), 0 to 1. */
  press: number;
}

/** The most the chin drops (design pixels), with the mouth wide open. */
export const MAX_JAW_DROP = 14;

/** Distance between the teeth edges per unit of jaw opening past {@link CLENCHED} (design pixels). */
const TEETH_APART = 24;
/** Up to this jaw opening the teeth stay together (clenched) while the lips part. */
const CLENCHED = 0.12;

const clamp01 = (v: number | undefined) => (v !== undefined && Number.isFinite(v) ? Math.max(0, Math.min(1, v)) : 0);
const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

/**
 * Pure geometry: how each MouthShape parameter moves the lips, teeth, tongue and jaw. The proportions follow a
 * face: the opening is at most about two thirds as tall as the mouth is wide, the front teeth show at most 9
 * design pixels (a sixth of the mouth's width) and are never wider than the opening.
 */
export function mouthGeometry(mouth: MouthShape, look: AvatarLook, l: FaceLayout): MouthGeometry {
  const open = clamp01(mouth.open);
  const width = clamp01(mouth.width);
  const round = clamp01(mouth.round);
  const closed = clamp01(mouth.closed);
  const teeth = clamp01(mouth.teeth);
  const press = clamp01(mouth.press) * closed;
  const tongue = clamp01(mouth.tongue);
  // Pressed lips and teeth-on-lip both hold the jaw nearly shut.
  const jaw = open * (1 - 0.9 * closed) * (1 - 0.7 * teeth);
  const parted = 1 - closed;
  // The opening: the jaw's drop, rounded lips pushed apart, spread lips drawn back off the (clenched) teeth, and
  // for F/V the upper lip lifted off the teeth.
  const gap = 32 * jaw + 8 * round * parted + 8 * width * parted * (1 - round) * (1 - 0.6 * teeth) + 5 * teeth * parted;
  const my = l.mouthY;
  const fullness = look.lips.fullness;
  const halfWidth = l.rx * 0.3 * (1 + 0.34 * width - 0.4 * round) * (1 + 0.08 * (fullness - 1)) * (1 - 0.04 * press);
  // The jaw carries the lower lip down; with F/V the lower lip rises to meet the upper teeth.
  const innerTop = my - gap * (0.32 + 0.18 * teeth);
  const innerBottom = innerTop + gap;
  // The teeth: apart by the jaw's opening, the rest of the opening shared by the upper (two thirds) and lower rows;
  // rounded lips cover part of them. With F/V the upper teeth reach past the lower lip's edge (it covers their tips).
  const apart = (TEETH_APART * Math.max(0, jaw - CLENCHED)) / (1 - CLENCHED);
  const showing = Math.max(0, gap - apart) * (1 - 0.45 * round);
  const upperTeethEdge = lerp(innerTop + Math.min(9, showing * 0.65), innerBottom + 2, teeth);
  const lowerTeethTop = lerp(innerBottom - Math.min(6, showing * 0.35), innerBottom + 8, teeth);
  // The tongue lies low behind the lower teeth; raised, its tip touches the back of the upper teeth.
  const tongueTop = lerp(innerBottom - Math.min(gap * 0.28, 8), upperTeethEdge - 1.5, tongue);
  const lipPress = 1 - 0.25 * closed - 0.3 * press;
  return {
    halfWidth,
    cornerY: my - 3.5 - 2.5 * width + 2.5 * round + 2 * jaw,
    innerTop,
    innerBottom,
    upperLip: (6 + 3 * round) * fullness * lipPress,
    // The lower lip tucked up under the teeth (F/V) shows less of itself.
    lowerLip: (8 + 3 * round) * fullness * lipPress * (1 - 0.3 * teeth),
    roundness: 0.48 + 0.4 * round,
    jawDrop: MAX_JAW_DROP * jaw,
    upperTeethEdge,
    lowerTeethTop,
    teethHalfWidth: halfWidth * (0.72 - 0.12 * round),
    teethOnLip: teeth,
    tongueTop,
    press,
  };
}

/**
 * The control height that makes a cubic from a corner at height `y` to the other corner (both control points at that
 * height, placed symmetrically) reach `extreme` at the centre: the curve's midpoint is `y/4 + 3c/4`.
 */
const through = (y: number, extreme: number) => (extreme - 0.25 * y) / 0.75;

/** The opening between the lips as a closed path. */
function innerPath(ctx: ShapeCanvas, cx: number, g: MouthGeometry): void {
  const { halfWidth: hw, cornerY: y, roundness: k } = g;
  ctx.beginPath();
  ctx.moveTo(cx - hw, y);
  ctx.bezierCurveTo(cx - hw * k, through(y, g.innerTop), cx + hw * k, through(y, g.innerTop), cx + hw, y);
  ctx.bezierCurveTo(cx + hw * k, through(y, g.innerBottom), cx - hw * k, through(y, g.innerBottom), cx - hw, y);
  ctx.closePath();
}

/** Upper outer lip edge from the left corner to the right one (with the cupid's bow). */
function upperOuter(ctx: ShapeCanvas, cx: number, g: MouthGeometry): void {
  const { halfWidth: hw, cornerY: y, upperLip: ut } = g;
  const top = Math.min(g.innerTop, y) - ut;
  ctx.moveTo(cx - hw - 3, y);
  ctx.bezierCurveTo(cx - hw * 0.75, top + ut * 0.2, cx - hw * 0.4, top - 2, cx - hw * 0.18, top - 1);
  ctx.quadraticCurveTo(cx, top + 2.5, cx + hw * 0.18, top - 1);
  ctx.bezierCurveTo(cx + hw * 0.4, top - 2, cx + hw * 0.75, top + ut * 0.2, cx + hw + 3, y);
}

/** Lower outer lip edge from the right corner back to the left one. */
function lowerOuter(ctx: ShapeCanvas, cx: number, g: MouthGeometry): void {
  const { halfWidth: hw, cornerY: y } = g;
  const c = through(y, Math.max(g.innerBottom, y) + g.lowerLip);
  ctx.bezierCurveTo(cx + hw * 0.7, c, cx - hw * 0.7, c, cx - hw - 3, y);
}

/** A row of front teeth from `top` to `bottom` (its biting edge), with faint gaps between the teeth. */
function teethRow(ctx: ShapeCanvas, cx: number, halfWidth: number, top: number, bottom: number, edge: 'top' | 'bottom'): void {
  const h = bottom - top;
  if (h <= 0.3) return;
  const r = Math.min(3, h / 2);
  ctx.fillStyle = '#f7f4ec';
  ctx.beginPath();
  ctx.roundRect(cx - halfWidth, top, halfWidth * 2, h, edge === 'bottom' ? [0, 0, r, r] : [r, r, 0, 0]);
  ctx.fill();
  // Six front teeth: the central incisors widest.
  ctx.strokeStyle = 'rgba(150,130,120,0.28)';
  ctx.lineWidth = 0.8;
  ctx.beginPath();
  for (const f of [0, -0.34, 0.34, -0.62, 0.62]) {
    ctx.moveTo(cx + f * halfWidth, top);
    ctx.lineTo(cx + f * halfWidth, bottom);
  }
  ctx.stroke();
}

/**
 * A rectangle (design pixels, in the head's own space) that holds everything {@link drawMouth} paints for `g`,
 * strokes and anti-aliasing included: the lips and their corners' creases across, from the upper lip's bow (or the
 * creases' top) down to the lower lip, the crease under pressed lips or the creases' ends. The teeth and tongue lie
 * within the opening, which lies within the lips.
 */
export function mouthBounds(l: FaceLayout, g: MouthGeometry): { x0: number; y0: number; x1: number; y1: number } {
  const { halfWidth: hw, cornerY: y } = g;
  const top = Math.min(g.innerTop, y) - g.upperLip - 2;
  const bottom = Math.max(Math.max(g.innerBottom, y) + g.lowerLip + 6, y + 5, g.innerBottom + 3);
  return { x0: l.cx - hw - 9, y0: Math.min(top, y - 3) - 2, x1: l.cx + hw + 9, y1: bottom + 2 };
}

/** Draws the mouth for `mouth`: lips, inner mouth, tongue and teeth. */
export function drawMouth(ctx: ShapeCanvas, look: AvatarLook, l: FaceLayout, g: MouthGeometry, skinShadow: string): void {
  const cx = l.cx;
  const { halfWidth: hw, cornerY: y } = g;
  const lip = look.lips.color;
  const gap = g.innerBottom - g.innerTop;
  const lowerInner = Math.max(g.innerBottom, y);
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  // Whole lip shape.
  ctx.beginPath();
  upperOuter(ctx, cx, g);
  lowerOuter(ctx, cx, g);
  ctx.closePath();
  ctx.fillStyle = lip;
  ctx.fill();
  // The upper lip is a little darker than the lower.
  ctx.beginPath();
  upperOuter(ctx, cx, g);
  ctx.bezierCurveTo(cx + hw * g.roundness, through(y, g.innerTop), cx - hw * g.roundness, through(y, g.innerTop), cx - hw - 3, y);
  ctx.closePath();
  ctx.fillStyle = shade(lip, 0.14 + 0.08 * g.press);
  ctx.fill();
  // Lower lip sheen, in the middle of the lower lip.
  ctx.fillStyle = `rgba(255,255,255,${0.22 * (1 - 0.5 * g.press) * (1 - 0.6 * g.teethOnLip)})`;
  ctx.beginPath();
  ctx.ellipse(cx, lowerInner + g.lowerLip * 0.5, hw * 0.32, g.lowerLip * 0.2, 0, 0, Math.PI * 2);
  ctx.fill();

  if (gap > 0.8) {
    ctx.save();
    innerPath(ctx, cx, g);
    ctx.fillStyle = '#4b1619';
    ctx.fill();
    ctx.clip();
    // Tongue: low in the mouth, or its tip raised to the upper teeth.
    if (g.tongueTop < g.innerBottom - 1) {
      ctx.fillStyle = '#c9525c';
      ctx.beginPath();
      const depth = g.innerBottom + 6 - g.tongueTop;
      ctx.ellipse(cx, g.tongueTop + depth * 0.55, hw * 0.45, depth * 0.55, 0, 0, Math.PI * 2);
      ctx.fill();
    }
    teethRow(ctx, cx, g.teethHalfWidth * 0.85, g.lowerTeethTop, g.innerBottom + 8, 'top');
    teethRow(ctx, cx, g.teethHalfWidth, g.innerTop - 8, g.upperTeethEdge, 'bottom');
    ctx.restore();
  }
  if (g.teethOnLip > 0.05) {
    // F/V: the top of the lower lip, tucked up under the teeth, lies in their shadow.
    ctx.strokeStyle = withAlpha(shade(lip, 0.3), 0.55 * g.teethOnLip);
    ctx.lineWidth = 2.5;
    const c = through(y, g.innerBottom + 1.3);
    ctx.beginPath();
    ctx.moveTo(cx - hw * 0.8, y + 0.6);
    ctx.bezierCurveTo(cx - hw * 0.4, c, cx + hw * 0.4, c, cx + hw * 0.8, y + 0.6);
    ctx.stroke();
  }
  // The line where the lips meet, strongest when pressed together.
  const seam = Math.max(0, 1 - gap / 3);
  if (seam > 0) {
    ctx.strokeStyle = withAlpha(shade(lip, 0.55 + 0.15 * g.press), 0.9 * seam);
    ctx.lineWidth = 2 + 0.6 * g.press;
    const mid = through(y, (g.innerTop + g.innerBottom) / 2 + 1.2);
    ctx.beginPath();
    ctx.moveTo(cx - hw - 1, y);
    ctx.bezierCurveTo(cx - hw * 0.45, mid, cx + hw * 0.45, mid, cx + hw + 1, y);
    ctx.stroke();
  }
  if (g.press > 0.05) {
    // Pressed lips bulge the skin under the lower lip into a crease.
    const crease = lowerInner + g.lowerLip + 4;
    ctx.strokeStyle = withAlpha(skinShadow, 0.55 * g.press);
    ctx.lineWidth = 1.6;
    ctx.beginPath();
    ctx.moveTo(cx - hw * 0.45, crease + 1);
    ctx.quadraticCurveTo(cx, crease - 1.5, cx + hw * 0.45, crease + 1);
    ctx.stroke();
  }
  // Corner creases.
  ctx.strokeStyle = withAlpha(skinShadow, 0.8);
  ctx.lineWidth = 2;
  for (const s of [-1, 1]) {
    ctx.beginPath();
    ctx.moveTo(cx + s * (hw + 2), y - 2);
    ctx.quadraticCurveTo(cx + s * (hw + 6), y, cx + s * (hw + 4), y + 4);
    ctx.stroke();
  }
  ctx.restore();
}
