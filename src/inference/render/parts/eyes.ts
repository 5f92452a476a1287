import type { AvatarLook } from '../../../domain/avatar/look.js';
import { shade } from '../color.js';
import type { Ctx, FaceLayout } from '../layout.js';

/**
 * A rectangle (design pixels, in the head's own space) that holds everything {@link drawEyes} paints for `look`, at
 * any blink or gaze, strokes and anti-aliasing included: both eyes, their lids' lines above them and the lashes at
 * their outer corners. The lid and the iris are clipped to the eye.
 */
export function eyesBounds(look: AvatarLook, l: FaceLayout): { x0: number; y0: number; x1: number; y1: number } {
  const { w, h } = eyeSize(look);
  const reach = l.eyeDx + w + 10;
  const above = Math.max(h * 1.35, h * 0.58 + 7);
  return { x0: l.cx - reach, y0: l.eyeY - above - 4, x1: l.cx + reach, y1: l.eyeY + h * 1.25 + 4 };
}

/** Half-width and half-height of one eye for the look. */
export function eyeSize(look: AvatarLook): { w: number; h: number } {
  const s = look.eyes.size;
  return look.eyes.shape === 'round' ? { w: 16 * s, h: 13.5 * s } : { w: 18 * s, h: 11 * s };
}

/** The eye opening: upper lid control height `upper` and lower `lower` (both relative to `h`). */
function eyePath(ctx: Ctx, x: number, y: number, w: number, h: number, upper: number, lower: number, k: number): void {
  ctx.beginPath();
  ctx.moveTo(x - w, y);
  ctx.bezierCurveTo(x - w * k, y - h * upper, x + w * k, y - h * upper, x + w, y - h * 0.08);
  ctx.bezierCurveTo(x + w * k, y + h * lower, x - w * k, y + h * lower, x - w, y);
  ctx.closePath();
}

/**
 * Both eyes with iris, pupil, highlights and lids. `blink` 0 open to 1 closed; `gazeX`/`gazeY`
 * move the pupils (design pixels).
 */
export function drawEyes(ctx: Ctx, look: AvatarLook, l: FaceLayout, blink: number, gazeX: number, gazeY: number): void {
  const { w, h } = eyeSize(look);
  const k = look.eyes.shape === 'round' ? 0.62 : 0.48;
  const upper = look.eyes.shape === 'round' ? 1.3 : 1.35;
  const lower = look.eyes.shape === 'round' ? 1.25 : 1.0;
  const line = '#2b1d1a';
  for (const s of [-1, 1]) {
    const x = l.cx + s * l.eyeDx;
    const y = l.eyeY;
    // The upper lid comes down over the eye while blinking.
    const lid = upper - (upper + lower * 0.9) * blink;
    // A shut eye is only its lid line (painting the white and covering it would leave a faint rim).
    if (blink < 0.95) drawEyeball(ctx, look, x, y, w, h, { upper, lower, k, lid, blink, gazeX, gazeY });
    // Lid line and lashes.
    ctx.save();
    ctx.lineCap = 'round';
    ctx.strokeStyle = line;
    ctx.lineWidth = look.eyes.lashes ? 3.6 : 2.6;
    ctx.beginPath();
    ctx.moveTo(x - w, y);
    ctx.bezierCurveTo(x - w * k, y - h * lid, x + w * k, y - h * lid, x + w, y - h * 0.08);
    ctx.stroke();
    if (look.eyes.lashes) {
      ctx.lineWidth = 2.4;
      const ox = x + s * w;
      const oy = y - h * 0.08;
      ctx.beginPath();
      ctx.moveTo(ox - s * 2, oy - 1);
      ctx.lineTo(ox + s * 6, oy - 6);
      ctx.moveTo(ox - s * 6, oy - h * 0.5 * (1 - blink));
      ctx.lineTo(ox + s * 2, oy - h * 0.5 * (1 - blink) - 6);
      ctx.stroke();
    }
    if (blink < 0.6) {
      ctx.globalAlpha = 0.3 * (1 - blink);
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.moveTo(x + w, y - h * 0.08);
      ctx.bezierCurveTo(x + w * k, y + h * lower, x - w * k, y + h * lower, x - w, y);
      ctx.stroke();
    }
    ctx.restore();
  }
}

/** Lid and gaze state of one eye. */
interface EyeState {
  upper: number;
  lower: number;
  k: number;
  lid: number;
  blink: number;
  gazeX: number;
  gazeY: number;
}

/** The white, iris, pupil and highlights of one eye, with the lid covering it while blinking. */
function drawEyeball(ctx: Ctx, look: AvatarLook, x: number, y: number, w: number, h: number, e: EyeState): void {
  const { upper, lower, k, lid, blink, gazeX, gazeY } = e;
  ctx.save();
  eyePath(ctx, x, y, w, h, upper, lower, k);
  ctx.fillStyle = '#fbfaf8';
  ctx.fill();
  ctx.clip();
  const ix = x + gazeX;
  const iy = y + gazeY + 0.5;
  const ir = h * (look.eyes.shape === 'round' ? 0.88 : 0.98);
  ctx.beginPath();
  ctx.arc(ix, iy, ir, 0, Math.PI * 2);
  ctx.fillStyle = look.eyes.iris;
  ctx.fill();
  ctx.lineWidth = 1.5;
  ctx.strokeStyle = shade(look.eyes.iris, 0.45);
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(ix, iy, ir * 0.5, 0, Math.PI * 2);
  ctx.fillStyle = '#121010';
  ctx.fill();
  ctx.fillStyle = '#ffffff';
  ctx.beginPath();
  ctx.arc(ix + ir * 0.35, iy - ir * 0.38, ir * 0.26, 0, Math.PI * 2);
  ctx.fill();
  ctx.beginPath();
  ctx.arc(ix - ir * 0.3, iy + ir * 0.35, ir * 0.12, 0, Math.PI * 2);
  ctx.fill();
  if (blink > 0) {
    ctx.beginPath();
    ctx.moveTo(x - w - 2, y - h * 2);
    ctx.lineTo(x + w + 2, y - h * 2);
    ctx.lineTo(x + w, y - h * 0.08);
    ctx.bezierCurveTo(x + w * k, y - h * lid, x - w * k, y - h * lid, x - w, y);
    ctx.closePath();
    ctx.fillStyle = look.skin.tone;
    ctx.fill();
  }
  ctx.restore();
}

/** Eyebrows; `raise` lifts them (design pixels), e.g. while talking. */
export function drawBrows(ctx: Ctx, look: AvatarLook, l: FaceLayout, raise: number): void {
  const { w, h } = eyeSize(look);
  const color = look.brows.color ?? shade(look.hair.color, look.hair.style === 'bald' ? 0.1 : 0.05);
  const y = l.eyeY - h * 1.55 - 10 - raise;
  const arch = 3 + look.brows.arch * 9;
  ctx.save();
  ctx.fillStyle = color;
  const t = 3.2 * look.brows.thickness;
  for (const s of [-1, 1]) {
    const inner = l.cx + s * (l.eyeDx - w * 0.95);
    const outer = l.cx + s * (l.eyeDx + w * 1.15);
    const peak = l.cx + s * (l.eyeDx + w * 0.35);
    // A tapered brow: thick at the inner end, thin at the outer.
    ctx.beginPath();
    ctx.moveTo(inner, y + 3 + t);
    ctx.quadraticCurveTo(peak, y - arch - t * 0.4, outer, y + 5);
    ctx.quadraticCurveTo(peak, y - arch - t * 1.9, inner, y + 3 - t);
    ctx.quadraticCurveTo(inner - s * t, y + 3, inner, y + 3 + t);
    ctx.fill();
  }
  ctx.restore();
}
