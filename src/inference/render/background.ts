import type { AvatarLook } from '../../domain/avatar/look.js';
import type { Ctx } from './layout.js';

/** Anything `drawImage` accepts and that has a size (an `Image` or a `Canvas`). */
export interface SizedImage {
  width: number;
  height: number;
}

/** The source rectangle of `image` that, scaled, covers a `width`×`height` frame (centred crop). */
export function coverCrop(image: SizedImage, width: number, height: number): { sx: number; sy: number; sw: number; sh: number } {
  const scale = Math.max(width / image.width, height / image.height);
  const sw = width / scale;
  const sh = height / scale;
  return { sx: (image.width - sw) / 2, sy: (image.height - sh) / 2, sw, sh };
}

/** Draws `image` scaled to cover the whole frame, cropping the overflow evenly. */
export function drawCover(ctx: Ctx, image: Parameters<Ctx['drawImage']>[0] & SizedImage, width: number, height: number): void {
  const { sx, sy, sw, sh } = coverCrop(image, width, height);
  ctx.drawImage(image, sx, sy, sw, sh, 0, 0, width, height);
}

/** Fills the frame with the look's backdrop gradient and a soft light behind the head. */
export function drawBackdrop(ctx: Ctx, look: AvatarLook, width: number, height: number): void {
  const grad = ctx.createLinearGradient(0, 0, 0, height);
  grad.addColorStop(0, look.backdrop.top);
  grad.addColorStop(1, look.backdrop.bottom);
  ctx.fillStyle = grad;
  ctx.fillRect(0, 0, width, height);
  const r = Math.max(width, height) * 0.55;
  const glow = ctx.createRadialGradient(width / 2, height * 0.4, 0, width / 2, height * 0.4, r);
  glow.addColorStop(0, 'rgba(255,255,255,0.35)');
  glow.addColorStop(1, 'rgba(255,255,255,0)');
  ctx.fillStyle = glow;
  ctx.fillRect(0, 0, width, height);
}
