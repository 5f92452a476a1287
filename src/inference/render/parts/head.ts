import type { AvatarLook } from '../../../domain/avatar/look.js';
import { mixColor, shade, withAlpha } from '../color.js';
import type { Ctx, FaceLayout } from '../layout.js';
import type { PathSink } from '../raster/path-coverage.js';

/** Outline parameters per head shape: upper-corner squareness, jaw width and chin width. */
const SHAPES: Record<AvatarLook['head']['shape'], { crown: number; jaw: number; chin: number }> = {
  oval: { crown: 0.56, jaw: 0.84, chin: 0.34 },
  round: { crown: 0.6, jaw: 0.96, chin: 0.46 },
  square: { crown: 0.7, jaw: 1.0, chin: 0.55 },
  heart: { crown: 0.6, jaw: 0.74, chin: 0.2 },
};

/**
 * Fills the head with skin and a soft side shade, in one pass: a radial gradient from the skin tone to
 * the tone 45 % of the way to the shadow, which is exactly the shadow at 0–45 % opacity over the skin
 * (no clip and no second fill: this part is painted every frame).
 */
export function drawHead(ctx: Ctx, look: AvatarLook, l: FaceLayout, jawDrop: number, skinShadow: string): void {
  headOutline(ctx, look, l, jawDrop);
  ctx.fillStyle = headSkinGradient(ctx, look, l, skinShadow);
  ctx.fill();
}

/**
 * The head's skin paint of {@link drawHead}, in the head's own design space (a gradient is placed by the transform
 * it is filled under): FrameRenderer also fills a layer with it, whose pixels then colour the skin it fills itself.
 */
export function headSkinGradient(ctx: Ctx, look: AvatarLook, l: FaceLayout, skinShadow: string): ReturnType<Ctx['createRadialGradient']> {
  const skin = ctx.createRadialGradient(l.cx - l.rx * 0.2, l.cy - l.ry * 0.25, l.rx * 0.6, l.cx, l.cy, l.rx * 1.35);
  skin.addColorStop(0, look.skin.tone);
  skin.addColorStop(1, mixColor(look.skin.tone, skinShadow, 0.45));
  return skin;
}

/**
 * The height (design pixels, in the head's own frame) above which the head outline does not depend on
 * `jawDrop`: the jaw's curves start at the sides at this height and only go down from there.
 */
export function jawTop(l: FaceLayout): number {
  return l.cy - l.ry * 0.05;
}

/**
 * The head outline as a closed path (not filled); `jawDrop` lowers the chin as the mouth opens. Recorded on a canvas
 * or on any {@link PathSink} (FrameRenderer fills it in TypeScript below the jaw line).
 */
export function headOutline(ctx: PathSink, look: AvatarLook, l: FaceLayout, jawDrop: number): void {
  const { crown, jaw, chin } = SHAPES[look.head.shape];
  const { cx, cy, rx, ry } = l;
  const top = cy - ry;
  const bottom = cy + ry + jawDrop;
  ctx.beginPath();
  ctx.moveTo(cx, top);
  ctx.bezierCurveTo(cx + rx * crown, top, cx + rx, cy - ry * 0.55, cx + rx, jawTop(l));
  ctx.bezierCurveTo(cx + rx, cy + ry * 0.4, cx + rx * jaw, cy + ry * 0.78 + jawDrop * 0.6, cx + rx * chin, bottom - ry * 0.05);
  ctx.quadraticCurveTo(cx + rx * chin * 0.55, bottom, cx, bottom);
  ctx.quadraticCurveTo(cx - rx * chin * 0.55, bottom, cx - rx * chin, bottom - ry * 0.05);
  ctx.bezierCurveTo(cx - rx * jaw, cy + ry * 0.78 + jawDrop * 0.6, cx - rx, cy + ry * 0.4, cx - rx, jawTop(l));
  ctx.bezierCurveTo(cx - rx, cy - ry * 0.55, cx - rx * crown, top, cx, top);
  ctx.closePath();
}

/** Ears on both sides, behind the head. */
export function drawEars(ctx: Ctx, look: AvatarLook, l: FaceLayout, skinShadow: string): void {
  for (const s of [1, -1]) {
    const x = l.cx + s * l.rx * 0.97;
    const y = l.cy + l.ry * 0.12;
    ctx.beginPath();
    ctx.ellipse(x, y, 15, 23, s * 0.15, 0, Math.PI * 2);
    ctx.fillStyle = look.skin.tone;
    ctx.fill();
    ctx.beginPath();
    ctx.ellipse(x + s * 3, y + 1, 8, 14, s * 0.15, 0, Math.PI * 2);
    ctx.fillStyle = withAlpha(skinShadow, 0.55);
    ctx.fill();
    if (look.earrings) {
      ctx.beginPath();
      ctx.arc(x + s * 2, y + 26, 5, 0, Math.PI * 2);
      ctx.fillStyle = look.earrings;
      ctx.fill();
      ctx.beginPath();
      ctx.arc(x + s * 1, y + 24.5, 1.8, 0, Math.PI * 2);
      ctx.fillStyle = shade(look.earrings, -0.6);
      ctx.fill();
    }
  }
}

/** The neck from under the chin down to the collar, with the chin's shadow. */
export function drawNeck(ctx: Ctx, look: AvatarLook, l: FaceLayout, skinShadow: string): void {
  const w = l.neckHalfWidth;
  const top = l.cy + l.ry * 0.55;
  const bottom = l.shoulderY + 24;
  ctx.save();
  ctx.beginPath();
  ctx.moveTo(l.cx - w, top);
  ctx.lineTo(l.cx + w, top);
  ctx.quadraticCurveTo(l.cx + w, bottom - 30, l.cx + w * 1.35, bottom);
  ctx.lineTo(l.cx - w * 1.35, bottom);
  ctx.quadraticCurveTo(l.cx - w, bottom - 30, l.cx - w, top);
  ctx.closePath();
  ctx.fillStyle = look.skin.tone;
  ctx.fill();
  ctx.clip();
  ctx.beginPath();
  ctx.ellipse(l.cx, l.cy + l.ry * 0.98, l.rx * 0.6, 26, 0, 0, Math.PI * 2);
  ctx.fillStyle = withAlpha(skinShadow, 0.7);
  ctx.fill();
  ctx.restore();
}
