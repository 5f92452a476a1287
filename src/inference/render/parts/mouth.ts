import type { AvatarLook } from '../../../domain/avatar/look.js';
import type { MouthShape } from '../../lipsync/mouth.js';
import { shade, withAlpha } from '../color.js';
import type { Ctx, FaceLayout } from '../layout.js';

/** The mouth's geometry in design pixels, derived from a {@link MouthShape}. */
export interface MouthGeometry {
  /** Half-width from the centre to each corner. */
  halfWidth: number;
  /** Height of the corners. */
  cornerY: number;
  /** Control heights of the inner opening's upper and lower edge. */
  innerTop: number;
  innerBottom: number;
  /** Lip thicknesses. */
  upperLip: number;
  lowerLip: number;
  /** Roundness of the opening (bezier control spread), 0.48 lens to ~0.85 near-oval. */
  roundness: number;
  /** How far the chin drops (design pixels). */
  jawDrop: number;
  /** Upper teeth resting on the lower lip, 0 to 1. */
  teethOnLip: number;
}

/** The most the chin drops (design pixels), with the mouth wide open. */
export const MAX_JAW_DROP = 14;

const clamp01 = (v: number) => (Number.isFinite(v) ? Math.max(0, Math.min(1, v)) : 0);

/** Pure geometry: how each MouthShape parameter moves the lips and jaw. */
export function mouthGeometry(mouth: MouthShape, look: AvatarLook, l: FaceLayout): MouthGeometry {
  const open = clamp01(mouth.open);
  const width = clamp01(mouth.width);
  const round = clamp01(mouth.round);
  const closed = clamp01(mouth.closed);
  const teeth = clamp01(mouth.teeth);
  // Pressed lips and teeth-on-lip both hold the jaw nearly shut.
  const jaw = open * (1 - 0.9 * closed) * (1 - 0.65 * teeth);
  const gap = 42 * jaw + 8 * round * (1 - closed) + 5 * teeth;
  const my = l.mouthY;
  const halfWidth = l.rx * 0.3 * (1 + 0.34 * width - 0.4 * round) * (1 + 0.08 * (look.lips.fullness - 1));
  const press = 1 - 0.25 * closed;
  const fullness = look.lips.fullness;
  return {
    halfWidth,
    cornerY: my - 3.5 - 2.5 * width + 2.5 * round + 2 * jaw,
    innerTop: my - gap * 0.32,
    innerBottom: my + gap * 0.68,
    upperLip: (6 + 3 * round) * fullness * press,
    lowerLip: (8 + 3 * round) * fullness * press * (1 - 0.35 * teeth),
    roundness: 0.48 + 0.4 * round,
    jawDrop: MAX_JAW_DROP * jaw,
    teethOnLip: teeth,
  };
}

function innerPath(ctx: Ctx, cx: number, g: MouthGeometry): void {
  const { halfWidth: hw, cornerY: y, roundness: k } = g;
  ctx.beginPath();
  ctx.moveTo(cx - hw, y);
  ctx.bezierCurveTo(cx - hw * k, g.innerTop, cx + hw * k, g.innerTop, cx + hw, y);
  ctx.bezierCurveTo(cx + hw * k, g.innerBottom, cx - hw * k, g.innerBottom, cx - hw, y);
  ctx.closePath();
}

/** Upper outer lip edge from the left corner to the right one (with the cupid's bow). */
function upperOuter(ctx: Ctx, cx: number, g: MouthGeometry): void {
  const { halfWidth: hw, cornerY: y, upperLip: ut } = g;
  const top = Math.min(g.innerTop, y) - ut;
  ctx.moveTo(cx - hw - 3, y);
  ctx.bezierCurveTo(cx - hw * 0.75, top + ut * 0.2, cx - hw * 0.4, top - 2, cx - hw * 0.18, top - 1);
  ctx.quadraticCurveTo(cx, top + 2.5, cx + hw * 0.18, top - 1);
  ctx.bezierCurveTo(cx + hw * 0.4, top - 2, cx + hw * 0.75, top + ut * 0.2, cx + hw + 3, y);
}

/** Draws the mouth for `mouth`: lips, inner mouth, teeth and tongue. */
export function drawMouth(ctx: Ctx, look: AvatarLook, l: FaceLayout, g: MouthGeometry, skinShadow: string): void {
  const cx = l.cx;
  const { halfWidth: hw, cornerY: y } = g;
  const lip = look.lips.color;
  const bottomOuter = Math.max(g.innerBottom, y) + g.lowerLip;
  const gap = g.innerBottom - g.innerTop;
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  // Whole lip shape.
  ctx.beginPath();
  upperOuter(ctx, cx, g);
  ctx.bezierCurveTo(cx + hw * 0.7, bottomOuter + g.lowerLip * 0.3, cx - hw * 0.7, bottomOuter + g.lowerLip * 0.3, cx - hw - 3, y);
  ctx.closePath();
  ctx.fillStyle = lip;
  ctx.fill();
  // The upper lip is a little darker than the lower.
  ctx.beginPath();
  upperOuter(ctx, cx, g);
  ctx.bezierCurveTo(cx + hw * g.roundness, g.innerTop, cx - hw * g.roundness, g.innerTop, cx - hw - 3, y);
  ctx.closePath();
  ctx.fillStyle = shade(lip, 0.14);
  ctx.fill();
  // Lower lip sheen.
  ctx.fillStyle = 'rgba(255,255,255,0.22)';
  ctx.beginPath();
  ctx.ellipse(cx, Math.max(g.innerBottom, y) + g.lowerLip * 0.5, hw * 0.35, g.lowerLip * 0.22, 0, 0, Math.PI * 2);
  ctx.fill();

  if (gap > 1.5) {
    ctx.save();
    innerPath(ctx, cx, g);
    ctx.fillStyle = '#4b1619';
    ctx.fill();
    ctx.clip();
    if (gap > 10) {
      ctx.fillStyle = '#c9525c';
      ctx.beginPath();
      ctx.ellipse(cx, g.innerBottom - gap * 0.02, hw * 0.62, gap * 0.32, 0, 0, Math.PI * 2);
      ctx.fill();
    }
    // Upper teeth, just below the upper lip.
    ctx.fillStyle = '#fbf9f4';
    ctx.beginPath();
    ctx.roundRect(cx - hw * 0.72, g.innerTop - 6, hw * 1.44, 6 + Math.min(gap * 0.34, 9), 3);
    ctx.fill();
    if (gap > 22) {
      ctx.beginPath();
      ctx.roundRect(cx - hw * 0.55, g.innerBottom - 6 - Math.min(gap * 0.12, 5), hw * 1.1, 10, 3);
      ctx.fill();
    }
    ctx.restore();
  }
  if (g.teethOnLip > 0.05) {
    // F/V: the upper teeth rest on the tucked-in lower lip.
    ctx.fillStyle = '#fbf9f4';
    ctx.strokeStyle = 'rgba(120,90,80,0.35)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.roundRect(cx - hw * 0.62, g.innerTop - 2, hw * 1.24, g.innerBottom + g.lowerLip * 0.4 - g.innerTop + 2, 3);
    ctx.fill();
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(cx, g.innerTop);
    ctx.lineTo(cx, g.innerBottom + g.lowerLip * 0.4);
    ctx.stroke();
  }
  // The line where the lips meet, strongest when pressed together.
  const seam = Math.max(0, 1 - gap / 3);
  if (seam > 0) {
    ctx.strokeStyle = withAlpha(shade(lip, 0.55), 0.9 * seam);
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(cx - hw - 1, y);
    ctx.bezierCurveTo(cx - hw * 0.45, (g.innerTop + g.innerBottom) / 2 + 1.5, cx + hw * 0.45, (g.innerTop + g.innerBottom) / 2 + 1.5, cx + hw + 1, y);
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
