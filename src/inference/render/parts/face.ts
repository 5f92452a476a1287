import type { AvatarLook } from '../../../domain/avatar/look.js';
import { withAlpha } from '../color.js';
import type { Ctx, FaceLayout } from '../layout.js';
import { eyeSize } from './eyes.js';

/** The nose in the look's style, drawn with the skin shadow colour. */
export function drawNose(ctx: Ctx, look: AvatarLook, l: FaceLayout, skinShadow: string): void {
  const { cx, noseY: y } = l;
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  ctx.strokeStyle = withAlpha(skinShadow, 0.95);
  ctx.lineWidth = 2.6;
  switch (look.nose.style) {
    case 'button': {
      const grad = ctx.createRadialGradient(cx, y - 2, 2, cx, y - 2, 15);
      grad.addColorStop(0, withAlpha(skinShadow, 0));
      grad.addColorStop(1, withAlpha(skinShadow, 0.5));
      ctx.fillStyle = grad;
      ctx.beginPath();
      ctx.ellipse(cx, y - 2, 14, 11, 0, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = withAlpha(skinShadow, 0.95);
      for (const s of [-1, 1]) {
        ctx.beginPath();
        ctx.ellipse(cx + s * 6, y + 4, 3.4, 2.2, s * 0.3, 0, Math.PI * 2);
        ctx.fill();
      }
      ctx.fillStyle = 'rgba(255,255,255,0.35)';
      ctx.beginPath();
      ctx.arc(cx - 3, y - 6, 3, 0, Math.PI * 2);
      ctx.fill();
      break;
    }
    case 'pointed':
      ctx.beginPath();
      ctx.moveTo(cx + 3, y - 30);
      ctx.lineTo(cx + 11, y);
      ctx.quadraticCurveTo(cx + 8, y + 6, cx + 1, y + 5);
      ctx.moveTo(cx - 7, y + 3);
      ctx.quadraticCurveTo(cx - 4, y + 6, cx - 1, y + 5);
      ctx.stroke();
      break;
    default:
      ctx.beginPath();
      ctx.moveTo(cx + 5, y - 26);
      ctx.quadraticCurveTo(cx + 12, y - 4, cx + 7, y + 2);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(cx - 9, y + 1);
      ctx.quadraticCurveTo(cx, y + 8, cx + 9, y + 1);
      ctx.stroke();
      break;
  }
  ctx.restore();
}

/** Cheek blush, when the look has one. */
export function drawBlush(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const blush = look.skin.blush;
  if (!blush) return;
  for (const s of [-1, 1]) {
    const x = l.cx + s * l.rx * 0.56;
    const y = l.cy + l.ry * 0.36;
    const grad = ctx.createRadialGradient(x, y, 2, x, y, 24);
    grad.addColorStop(0, withAlpha(blush, 0.42));
    grad.addColorStop(1, withAlpha(blush, 0));
    ctx.fillStyle = grad;
    ctx.beginPath();
    ctx.ellipse(x, y, 26, 18, 0, 0, Math.PI * 2);
    ctx.fill();
  }
}

/** Glasses over the eyes, when the look has them. */
export function drawGlasses(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const glasses = look.glasses;
  if (!glasses) return;
  const { w, h } = eyeSize(look);
  const rw = w * 1.5;
  const rh = Math.max(h * 1.75, w * 1.2);
  ctx.save();
  ctx.strokeStyle = glasses.color;
  ctx.lineWidth = 3.6;
  ctx.lineJoin = 'round';
  for (const s of [-1, 1]) {
    const x = l.cx + s * l.eyeDx;
    const y = l.eyeY + 1;
    ctx.beginPath();
    if (glasses.shape === 'round') ctx.ellipse(x, y, rw, rh, 0, 0, Math.PI * 2);
    else ctx.roundRect(x - rw, y - rh, rw * 2, rh * 1.85, 7);
    ctx.fillStyle = 'rgba(220,235,255,0.16)';
    ctx.fill();
    ctx.stroke();
    // A reflection streak.
    ctx.save();
    ctx.strokeStyle = 'rgba(255,255,255,0.45)';
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    ctx.moveTo(x + rw * 0.35, y - rh * 0.7);
    ctx.lineTo(x + rw * 0.65, y - rh * 0.25);
    ctx.stroke();
    ctx.restore();
    ctx.beginPath();
    ctx.moveTo(x + s * rw, y - rh * 0.45);
    ctx.lineTo(l.cx + s * l.rx * 0.99, y - rh * 0.5);
    ctx.stroke();
  }
  ctx.beginPath();
  ctx.moveTo(l.cx - l.eyeDx + rw, l.eyeY - 2);
  ctx.quadraticCurveTo(l.cx, l.eyeY - 9, l.cx + l.eyeDx - rw, l.eyeY - 2);
  ctx.stroke();
  ctx.restore();
}
