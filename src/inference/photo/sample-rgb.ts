/**
 * The RGB of RGBA `pixels` (`width`×`height`) at frame point (`x`, `y`), pixel centres at +0.5, sampled
 * bilinearly (clamped to the image), into `out`, which is returned.
 */
export function sampleRgb(pixels: Uint8Array, width: number, height: number, x: number, y: number, out: [number, number, number]): [number, number, number] {
  // Pixel-index coordinates, clamped so that the 2×2 neighbourhood exists.
  const px = Math.min(Math.max(x - 0.5, 0), width - 1.000001);
  const py = Math.min(Math.max(y - 0.5, 0), height - 1.000001);
  const ix = px | 0;
  const iy = py | 0;
  const fx = px - ix;
  const fy = py - iy;
  const o = (iy * width + ix) * 4;
  const s = width * 4;
  for (let c = 0; c < 3; c++) {
    const top = pixels[o + c]! + (pixels[o + 4 + c]! - pixels[o + c]!) * fx;
    const bottom = pixels[o + s + c]! + (pixels[o + s + 4 + c]! - pixels[o + s + c]!) * fx;
    out[c] = top + (bottom - top) * fy;
  }
  return out;
}
