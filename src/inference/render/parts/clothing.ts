import type { AvatarLook } from '../../../domain/avatar/look.js';
import { shade, withAlpha } from '../color.js';
import { TORSO_BOTTOM, type Ctx, type FaceLayout } from '../layout.js';

/** Half-width of the neck where it meets the clothing. */
function neckBase(l: FaceLayout): number {
  return l.neckHalfWidth * 1.35;
}

/** The shoulders and chest outline; below the design square it runs straight down (portrait frames show more of it). */
function torsoPath(ctx: Ctx, l: FaceLayout): void {
  const { cx, shoulderY: sy } = l;
  ctx.beginPath();
  ctx.moveTo(cx - 238, TORSO_BOTTOM);
  ctx.lineTo(cx - 238, 530);
  ctx.lineTo(cx - 230, sy + 72);
  ctx.bezierCurveTo(cx - 224, sy + 22, cx - 175, sy + 4, cx - 96, sy - 2);
  ctx.lineTo(cx + 96, sy - 2);
  ctx.bezierCurveTo(cx + 175, sy + 4, cx + 224, sy + 22, cx + 230, sy + 72);
  ctx.lineTo(cx + 238, 530);
  ctx.lineTo(cx + 238, TORSO_BOTTOM);
  ctx.closePath();
}

/** Clothing parts that lie behind the neck: the torso and, per style, shirt or hood. */
export function drawClothingBack(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const { color, accent, style } = look.clothing;
  const { cx, shoulderY: sy } = l;
  const nb = neckBase(l);
  ctx.save();
  torsoPath(ctx, l);
  ctx.fillStyle = color;
  ctx.fill();
  ctx.clip();
  // Soft shading towards the arms and a fold line at each armpit.
  const grad = ctx.createLinearGradient(cx - 240, 0, cx + 240, 0);
  grad.addColorStop(0, withAlpha(shade(color, 0.35), 0.8));
  grad.addColorStop(0.25, withAlpha(color, 0));
  grad.addColorStop(0.75, withAlpha(color, 0));
  grad.addColorStop(1, withAlpha(shade(color, 0.35), 0.8));
  ctx.fillStyle = grad;
  ctx.fillRect(cx - 240, sy - 10, 480, TORSO_BOTTOM - sy + 10);
  ctx.strokeStyle = shade(color, 0.22);
  ctx.lineWidth = 3;
  ctx.lineCap = 'round';
  for (const s of [1, -1]) {
    ctx.beginPath();
    ctx.moveTo(cx + s * 150, TORSO_BOTTOM);
    ctx.lineTo(cx + s * 150, 520);
    ctx.quadraticCurveTo(cx + s * 158, sy + 80, cx + s * 176, sy + 45);
    ctx.stroke();
  }
  if (style === 'blazer') {
    ctx.beginPath();
    ctx.moveTo(cx - nb - 6, sy - 3);
    ctx.lineTo(cx + nb + 6, sy - 3);
    ctx.lineTo(cx, sy + 96);
    ctx.closePath();
    ctx.fillStyle = accent;
    ctx.fill();
  } else if (style === 'hoodie') {
    // The hood, bunched up behind the neck.
    ctx.beginPath();
    ctx.moveTo(cx - nb - 46, sy + 16);
    ctx.bezierCurveTo(cx - nb - 40, sy - 24, cx - nb, sy - 34, cx, sy - 34);
    ctx.bezierCurveTo(cx + nb, sy - 34, cx + nb + 40, sy - 24, cx + nb + 46, sy + 16);
    ctx.quadraticCurveTo(cx, sy + 40, cx - nb - 46, sy + 16);
    ctx.fillStyle = shade(color, 0.12);
    ctx.fill();
    ctx.strokeStyle = shade(color, 0.3);
    ctx.lineWidth = 2.5;
    ctx.stroke();
  }
  ctx.restore();
}

/** Clothing parts in front of the neck: neckline trim, collars, lapels, strings. */
export function drawClothingFront(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const { color, accent, style } = look.clothing;
  const { cx, shoulderY: sy } = l;
  const nb = neckBase(l);
  ctx.save();
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  if (style === 'tshirt') {
    ctx.beginPath();
    ctx.moveTo(cx - nb - 4, sy - 2);
    ctx.quadraticCurveTo(cx, sy + 46, cx + nb + 4, sy - 2);
    ctx.strokeStyle = accent;
    ctx.lineWidth = 7;
    ctx.stroke();
  } else if (style === 'turtleneck') {
    const w = nb * 1.02;
    const top = sy - 34;
    ctx.beginPath();
    ctx.moveTo(cx - w * 0.86, top);
    ctx.quadraticCurveTo(cx, top + 10, cx + w * 0.86, top);
    ctx.lineTo(cx + w * 1.16, sy + 26);
    ctx.quadraticCurveTo(cx, sy + 38, cx - w * 1.16, sy + 26);
    ctx.closePath();
    ctx.fillStyle = accent;
    ctx.fill();
    ctx.strokeStyle = shade(accent, 0.2);
    ctx.lineWidth = 2;
    for (let i = -3; i <= 3; i++) {
      ctx.beginPath();
      ctx.moveTo(cx + i * w * 0.26, top + 6);
      ctx.lineTo(cx + i * w * 0.33, sy + 28);
      ctx.stroke();
    }
  } else if (style === 'blazer') {
    // Shirt collar points over the neck base.
    ctx.fillStyle = accent;
    ctx.strokeStyle = shade(accent, 0.22);
    ctx.lineWidth = 2;
    for (const s of [1, -1]) {
      ctx.beginPath();
      ctx.moveTo(cx + s * (nb - 2), sy - 16);
      ctx.lineTo(cx + s * (nb + 12), sy + 4);
      ctx.lineTo(cx + s * 6, sy + 34);
      ctx.lineTo(cx + s * 2, sy + 12);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    }
    // Lapels.
    ctx.fillStyle = shade(color, 0.12);
    ctx.strokeStyle = shade(color, 0.4);
    for (const s of [1, -1]) {
      ctx.beginPath();
      ctx.moveTo(cx + s * (nb + 8), sy - 4);
      ctx.lineTo(cx + s * (nb + 30), sy + 6);
      ctx.lineTo(cx + s * (nb + 20), sy + 40);
      ctx.lineTo(cx + s * (nb + 34), sy + 50);
      ctx.lineTo(cx + s * 3, sy + 104);
      ctx.lineTo(cx + s * 2, sy + 96);
      ctx.closePath();
      ctx.fill();
      ctx.stroke();
    }
    ctx.beginPath();
    ctx.arc(cx, sy + 68, 3, 0, Math.PI * 2);
    ctx.fillStyle = shade(accent, 0.3);
    ctx.fill();
  } else {
    // Hoodie: neckline trim and two strings.
    ctx.beginPath();
    ctx.moveTo(cx - nb - 2, sy - 2);
    ctx.quadraticCurveTo(cx, sy + 30, cx + nb + 2, sy - 2);
    ctx.strokeStyle = shade(color, 0.12);
    ctx.lineWidth = 6;
    ctx.stroke();
    ctx.strokeStyle = accent;
    ctx.lineWidth = 4;
    for (const s of [1, -1]) {
      ctx.beginPath();
      ctx.moveTo(cx + s * 22, sy + 14);
      ctx.quadraticCurveTo(cx + s * 26, sy + 50, cx + s * 22, sy + 86);
      ctx.stroke();
      ctx.beginPath();
      ctx.roundRect(cx + s * 22 - 3.5, sy + 84, 7, 12, 2);
      ctx.fillStyle = shade(accent, 0.15);
      ctx.fill();
    }
  }
  ctx.restore();
}
