import type { AvatarLook } from '../../../domain/avatar/look.js';
import { shade, withAlpha } from '../color.js';
import type { Ctx, FaceLayout } from '../layout.js';

/** Hair colours derived from the look. */
interface HairColors {
  base: string;
  dark: string;
  light: string;
}

function colors(look: AvatarLook): HairColors {
  const base = look.hair.color;
  return { base, dark: shade(base, 0.3), light: look.hair.highlight ?? shade(base, -0.35) };
}

/** Fills the current path with the hair colour and a top-lit gradient. */
function fillHair(ctx: Ctx, l: FaceLayout, c: HairColors): void {
  const grad = ctx.createLinearGradient(0, l.cy - l.ry - 40, 0, l.cy + l.ry + 120);
  grad.addColorStop(0, c.base);
  grad.addColorStop(1, c.dark);
  ctx.fillStyle = grad;
  ctx.fill();
}

/** A glossy arc on the crown. */
function sheen(ctx: Ctx, l: FaceLayout, c: HairColors, dx = 0): void {
  ctx.save();
  ctx.strokeStyle = withAlpha(c.light, 0.55);
  ctx.lineCap = 'round';
  ctx.lineWidth = 6;
  ctx.beginPath();
  ctx.ellipse(l.cx + dx, l.cy - l.ry * 0.35, l.rx * 0.78, l.ry * 0.62, 0, Math.PI * 1.18, Math.PI * 1.42);
  ctx.stroke();
  ctx.lineWidth = 3;
  ctx.beginPath();
  ctx.ellipse(l.cx + dx, l.cy - l.ry * 0.35, l.rx * 0.7, l.ry * 0.55, 0, Math.PI * 1.48, Math.PI * 1.6);
  ctx.stroke();
  ctx.restore();
}

/** The outer hair outline over the crown from the left point to the right point. */
function crownArc(ctx: Ctx, l: FaceLayout, puff: number, leftY: number, rightY: number): void {
  const { cx, cy, rx, ry } = l;
  ctx.moveTo(cx - rx - puff, leftY);
  ctx.bezierCurveTo(cx - rx - puff * 1.2, cy - ry * 0.95, cx - rx * 0.55, cy - ry - puff * 1.6, cx, cy - ry - puff * 1.5);
  ctx.bezierCurveTo(cx + rx * 0.55, cy - ry - puff * 1.6, cx + rx + puff * 1.2, cy - ry * 0.95, cx + rx + puff, rightY);
}

/** Hair behind the head (drawn before the body and head). */
export function drawHairBack(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const c = colors(look);
  const { cx, cy, rx, ry } = l;
  ctx.save();
  switch (look.hair.style) {
    case 'bob':
      ctx.beginPath();
      crownArc(ctx, l, 24, cy + ry * 0.62, cy + ry * 0.62);
      ctx.quadraticCurveTo(cx, cy + ry * 0.75, cx - rx - 24, cy + ry * 0.62);
      fillHair(ctx, l, c);
      break;
    case 'long':
      ctx.beginPath();
      crownArc(ctx, l, 26, l.shoulderY + 46, l.shoulderY + 46);
      for (let i = 0; i < 6; i++) {
        const x0 = cx + rx + 26 - ((i + 1) * (2 * rx + 52)) / 6;
        ctx.quadraticCurveTo(x0 + (2 * rx + 52) / 12, l.shoulderY + 60, x0, l.shoulderY + 46);
      }
      ctx.closePath();
      fillHair(ctx, l, c);
      break;
    case 'bun':
      ctx.beginPath();
      ctx.arc(cx, cy - ry - 26, 38, 0, Math.PI * 2);
      fillHair(ctx, l, c);
      ctx.strokeStyle = withAlpha(c.dark, 0.8);
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.arc(cx, cy - ry - 26, 24, Math.PI * 0.9, Math.PI * 1.9);
      ctx.stroke();
      ctx.strokeStyle = withAlpha(c.light, 0.5);
      ctx.beginPath();
      ctx.arc(cx, cy - ry - 30, 28, Math.PI * 1.15, Math.PI * 1.5);
      ctx.stroke();
      break;
    case 'curly':
      ctx.fillStyle = c.base;
      for (let i = 0; i < 22; i++) {
        const a = Math.PI * 0.88 + (i / 21) * Math.PI * 1.24;
        const x = cx + Math.cos(a) * (rx + 30);
        const y = cy - ry * 0.18 + Math.sin(a) * (ry + 22);
        ctx.beginPath();
        ctx.arc(x, y, 30 + (i % 3) * 4, 0, Math.PI * 2);
        fillHair(ctx, l, c);
      }
      ctx.beginPath();
      ctx.ellipse(cx, cy - ry * 0.22, rx + 34, ry + 20, 0, 0, Math.PI * 2);
      fillHair(ctx, l, c);
      curlTexture(ctx, l, c, rx + 40, ry + 30, cy - ry * 0.22);
      break;
    default:
      break;
  }
  ctx.restore();
}

/** Small curl arcs on a curly cloud. */
function curlTexture(ctx: Ctx, l: FaceLayout, c: HairColors, ex: number, ey: number, y0: number): void {
  ctx.lineWidth = 2.5;
  ctx.lineCap = 'round';
  for (let ring = 0; ring < 3; ring++) {
    for (let i = 0; i < 14; i++) {
      const a = Math.PI * 0.95 + ((i + ring * 0.5) / 13) * Math.PI * 1.1;
      const r = 0.55 + ring * 0.17;
      const x = l.cx + Math.cos(a) * ex * r;
      const y = y0 + Math.sin(a) * ey * r;
      ctx.strokeStyle = withAlpha(ring === 2 ? c.light : c.dark, ring === 2 ? 0.35 : 0.55);
      ctx.beginPath();
      ctx.arc(x, y, 6, a, a + Math.PI * 1.1);
      ctx.stroke();
    }
  }
}

/** Hair in front of the head (fringe, sides, hairline). */
export function drawHairFront(ctx: Ctx, look: AvatarLook, l: FaceLayout): void {
  const c = colors(look);
  const { cx, cy, rx, ry } = l;
  ctx.save();
  switch (look.hair.style) {
    case 'short':
      ctx.beginPath();
      crownArc(ctx, l, 13, cy - ry * 0.2, cy - ry * 0.2);
      ctx.quadraticCurveTo(cx + rx + 4, cy - ry * 0.02, cx + rx * 0.97, cy + ry * 0.1);
      ctx.lineTo(cx + rx * 0.93, cy + ry * 0.08);
      ctx.bezierCurveTo(cx + rx * 0.92, cy - ry * 0.2, cx + rx * 0.88, cy - ry * 0.34, cx + rx * 0.72, cy - ry * 0.4);
      ctx.bezierCurveTo(cx + rx * 0.5, cy - ry * 0.34, cx + rx * 0.2, cy - ry * 0.4, cx - rx * 0.05, cy - ry * 0.52);
      ctx.bezierCurveTo(cx - rx * 0.25, cy - ry * 0.62, cx - rx * 0.35, cy - ry * 0.7, cx - rx * 0.42, cy - ry * 0.74);
      ctx.bezierCurveTo(cx - rx * 0.6, cy - ry * 0.62, cx - rx * 0.9, cy - ry * 0.4, cx - rx * 0.93, cy + ry * 0.08);
      ctx.lineTo(cx - rx * 0.97, cy + ry * 0.1);
      ctx.quadraticCurveTo(cx - rx - 4, cy - ry * 0.02, cx - rx - 13, cy - ry * 0.2);
      ctx.closePath();
      fillHair(ctx, l, c);
      ctx.strokeStyle = withAlpha(c.dark, 0.7);
      ctx.lineWidth = 2.5;
      ctx.lineCap = 'round';
      for (let i = 0; i < 4; i++) {
        ctx.beginPath();
        ctx.moveTo(cx - rx * (0.5 - i * 0.12), cy - ry * (1.0 - i * 0.02));
        ctx.quadraticCurveTo(cx + rx * (0.1 + i * 0.15), cy - ry * (0.85 - i * 0.04), cx + rx * (0.45 + i * 0.12), cy - ry * (0.5 - i * 0.05));
        ctx.stroke();
      }
      sheen(ctx, l, c, -8);
      break;
    case 'bob':
      ctx.beginPath();
      crownArc(ctx, l, 22, cy + ry * 0.6, cy + ry * 0.6);
      ctx.lineTo(cx + rx * 0.84, cy + ry * 0.56);
      ctx.bezierCurveTo(cx + rx * 0.9, cy + ry * 0.1, cx + rx * 0.9, cy - ry * 0.3, cx + rx * 0.7, cy - ry * 0.4);
      ctx.bezierCurveTo(cx + rx * 0.3, cy - ry * 0.34, cx - rx * 0.3, cy - ry * 0.34, cx - rx * 0.7, cy - ry * 0.4);
      ctx.bezierCurveTo(cx - rx * 0.9, cy - ry * 0.3, cx - rx * 0.9, cy + ry * 0.1, cx - rx * 0.84, cy + ry * 0.56);
      ctx.closePath();
      fillHair(ctx, l, c);
      sheen(ctx, l, c);
      break;
    case 'long':
      ctx.beginPath();
      crownArc(ctx, l, 20, l.shoulderY + 20, l.shoulderY + 20);
      // Right curtain ends in a soft, slightly curled tip.
      ctx.bezierCurveTo(cx + rx + 22, l.shoulderY + 42, cx + rx * 0.98, l.shoulderY + 56, cx + rx * 0.86, l.shoulderY + 44);
      ctx.quadraticCurveTo(cx + rx * 0.8, l.shoulderY + 36, cx + rx * 0.8, l.shoulderY + 20);
      ctx.bezierCurveTo(cx + rx * 0.78, cy + ry * 0.9, cx + rx * 0.95, cy + ry * 0.3, cx + rx * 0.86, cy - ry * 0.1);
      ctx.bezierCurveTo(cx + rx * 0.8, cy - ry * 0.45, cx + rx * 0.3, cy - ry * 0.7, cx - rx * 0.18, cy - ry * 0.78);
      ctx.bezierCurveTo(cx - rx * 0.45, cy - ry * 0.45, cx - rx * 0.8, cy - ry * 0.3, cx - rx * 0.9, cy + ry * 0.05);
      ctx.bezierCurveTo(cx - rx * 0.98, cy + ry * 0.35, cx - rx * 0.8, cy + ry * 0.9, cx - rx * 0.8, l.shoulderY + 20);
      ctx.quadraticCurveTo(cx - rx * 0.8, l.shoulderY + 36, cx - rx * 0.86, l.shoulderY + 44);
      ctx.bezierCurveTo(cx - rx * 0.98, l.shoulderY + 56, cx - rx - 22, l.shoulderY + 42, cx - rx - 20, l.shoulderY + 20);
      ctx.closePath();
      fillHair(ctx, l, c);
      ctx.strokeStyle = withAlpha(c.dark, 0.6);
      ctx.lineWidth = 2.5;
      ctx.lineCap = 'round';
      for (const s of [1, -1]) {
        ctx.beginPath();
        ctx.moveTo(cx + s * rx * 1.02, cy - ry * 0.1);
        ctx.bezierCurveTo(cx + s * rx * 1.12, cy + ry * 0.4, cx + s * rx * 0.95, cy + ry * 0.9, cx + s * rx * 1.02, l.shoulderY + 36);
        ctx.stroke();
      }
      sheen(ctx, l, c, 10);
      break;
    case 'bun':
      ctx.beginPath();
      crownArc(ctx, l, 4, cy - ry * 0.05, cy - ry * 0.05);
      ctx.lineTo(cx + rx * 0.92, cy - ry * 0.05);
      ctx.bezierCurveTo(cx + rx * 0.85, cy - ry * 0.4, cx + rx * 0.5, cy - ry * 0.62, cx, cy - ry * 0.6);
      ctx.bezierCurveTo(cx - rx * 0.5, cy - ry * 0.62, cx - rx * 0.85, cy - ry * 0.4, cx - rx * 0.92, cy - ry * 0.05);
      ctx.closePath();
      fillHair(ctx, l, c);
      ctx.strokeStyle = withAlpha(c.dark, 0.7);
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(cx, cy - ry * 0.6);
      ctx.lineTo(cx, cy - ry - 4);
      ctx.stroke();
      sheen(ctx, l, c);
      break;
    case 'curly':
      ctx.beginPath();
      ctx.moveTo(cx - rx - 6, cy - ry * 0.05);
      crownArc(ctx, l, 6, cy - ry * 0.05, cy - ry * 0.05);
      ctx.bezierCurveTo(cx + rx * 0.8, cy - ry * 0.5, cx + rx * 0.4, cy - ry * 0.58, cx, cy - ry * 0.58);
      ctx.bezierCurveTo(cx - rx * 0.4, cy - ry * 0.58, cx - rx * 0.8, cy - ry * 0.5, cx - rx - 6, cy - ry * 0.05);
      fillHair(ctx, l, c);
      for (let i = 0; i <= 10; i++) {
        const t = i / 10;
        const a = Math.PI * (1.05 + t * 0.9);
        ctx.beginPath();
        ctx.arc(cx + Math.cos(a) * rx * 0.88, cy - ry * 0.08 + Math.sin(a) * ry * 0.52, 9, 0, Math.PI * 2);
        fillHair(ctx, l, c);
      }
      break;
    default:
      // Bald: a soft sheen on the scalp.
      ctx.fillStyle = 'rgba(255,255,255,0.18)';
      ctx.beginPath();
      ctx.ellipse(cx - rx * 0.25, cy - ry * 0.72, rx * 0.3, ry * 0.12, -0.3, 0, Math.PI * 2);
      ctx.fill();
      break;
  }
  ctx.restore();
}
