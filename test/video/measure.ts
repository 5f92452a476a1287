/**
 * Measures of video avatar frames (yuv420p), shared by the tests and `npm run bench video-avatar`: where the lower
 * face lies (from the landmarks), PSNR of the luma outside it, SSIM and frame-to-frame change inside it.
 */
import type { PixelBox } from '../../src/inference/video/yuv-pixels.js';
import { windowedSsim } from '../helpers/ssim.js';

/**
 * The rectangle the renderer may change for a face whose 68 points are `points`: from the nose's middle down to well
 * below the chin, across the jaw with a margin (the jaw warp's still ring lies within half an eye distance of the jaw
 * line).
 */
export function lowerFaceBox(points: ArrayLike<number>, width: number, height: number): PixelBox {
  const iod = Math.hypot(points[90]! - points[72]!, points[91]! - points[73]!);
  let x0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (let i = 0; i <= 16; i++) {
    x0 = Math.min(x0, points[2 * i]!);
    x1 = Math.max(x1, points[2 * i]!);
    y1 = Math.max(y1, points[2 * i + 1]!);
  }
  const top = Math.min(points[2 * 29 + 1]!, points[2 * 31 + 1]!, points[2 * 35 + 1]!) - 0.15 * iod;
  const margin = 0.6 * iod;
  return {
    x0: Math.max(0, Math.floor(x0 - margin)),
    y0: Math.max(0, Math.floor(top)),
    x1: Math.min(width, Math.ceil(x1 + margin)),
    y1: Math.min(height, Math.ceil(y1 + margin)),
  };
}

/** The mouth region: between the mouth's corners and from under the nose to the chin, with a small margin. */
export function mouthBox(points: ArrayLike<number>, width: number, height: number): PixelBox {
  const iod = Math.hypot(points[90]! - points[72]!, points[91]! - points[73]!);
  const m = 0.15 * iod;
  const xs = [48, 54, 8].map((i) => points[2 * i]!);
  return {
    x0: Math.max(0, Math.floor(Math.min(...xs) - m)),
    y0: Math.max(0, Math.floor(points[2 * 33 + 1]!)),
    x1: Math.min(width, Math.ceil(Math.max(...xs) + m)),
    y1: Math.min(height, Math.ceil(points[2 * 8 + 1]! + m)),
  };
}

const inside = (box: PixelBox, x: number, y: number) => x >= box.x0 && x < box.x1 && y >= box.y0 && y < box.y1;

/** PSNR (dB) of the luma of two yuv420p frames outside `box` (infinite when equal). */
export function psnrOutside(a: Uint8Array, b: Uint8Array, width: number, height: number, box: PixelBox): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (inside(box, x, y)) continue;
      const d = a[y * width + x]! - b[y * width + x]!;
      sum += d * d;
      n++;
    }
  }
  const mse = sum / Math.max(1, n);
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** Mean SSIM of the luma of two yuv420p frames over 8×8 windows (step 4) inside `box`. */
export function ssimInside(a: Uint8Array, b: Uint8Array, width: number, box: PixelBox): number {
  return windowedSsim((i) => a[i]!, (i) => b[i]!, width, box);
}

/** Mean absolute luma difference of two yuv420p frames inside `box`. */
export function changeInside(a: Uint8Array, b: Uint8Array, width: number, box: PixelBox): number {
  let sum = 0;
  for (let y = box.y0; y < box.y1; y++) for (let x = box.x0; x < box.x1; x++) sum += Math.abs(a[y * width + x]! - b[y * width + x]!);
  return sum / Math.max(1, (box.x1 - box.x0) * (box.y1 - box.y0));
}

/** Pearson correlation of two equally long series, and the lag (in samples, within ±`maxLag`) where it is largest. */
export function laggedCorrelation(a: readonly number[], b: readonly number[], maxLag: number): { correlation: number; lag: number; atZero: number } {
  const corr = (lag: number) => {
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < a.length; i++) {
      const j = i + lag;
      if (j < 0 || j >= b.length) continue;
      xs.push(a[i]!);
      ys.push(b[j]!);
    }
    const mx = xs.reduce((s, v) => s + v, 0) / xs.length;
    const my = ys.reduce((s, v) => s + v, 0) / ys.length;
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let k = 0; k < xs.length; k++) {
      sxy += (xs[k]! - mx) * (ys[k]! - my);
      sxx += (xs[k]! - mx) ** 2;
      syy += (ys[k]! - my) ** 2;
    }
    return sxy / Math.sqrt(sxx * syy || 1);
  };
  let best = { correlation: -Infinity, lag: 0 };
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    const c = corr(lag);
    if (c > best.correlation) best = { correlation: c, lag };
  }
  return { ...best, atZero: corr(0) };
}
