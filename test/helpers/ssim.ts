/**
 * Mean SSIM of two images' luma over 8×8 windows (step 4) within a rectangle, with the usual constants for 8-bit
 * images; `lumaA(i)` and `lumaB(i)` give pixel `i`'s luma (pixel index `y × width + x`), whatever the pixels' layout.
 * 1 when the rectangle holds no whole window.
 */
export function windowedSsim(lumaA: (i: number) => number, lumaB: (i: number) => number, width: number, box: { x0: number; y0: number; x1: number; y1: number }): number {
  const C1 = (0.01 * 255) ** 2;
  const C2 = (0.03 * 255) ** 2;
  let total = 0;
  let windows = 0;
  for (let y = box.y0; y + 8 <= box.y1; y += 4) {
    for (let x = box.x0; x + 8 <= box.x1; x += 4) {
      let sa = 0;
      let sb = 0;
      let saa = 0;
      let sbb = 0;
      let sab = 0;
      for (let dy = 0; dy < 8; dy++) {
        for (let dx = 0; dx < 8; dx++) {
          const i = (y + dy) * width + x + dx;
          const va = lumaA(i);
          const vb = lumaB(i);
          sa += va;
          sb += vb;
          saa += va * va;
          sbb += vb * vb;
          sab += va * vb;
        }
      }
      const ma = sa / 64;
      const mb = sb / 64;
      const va = saa / 64 - ma * ma;
      const vb = sbb / 64 - mb * mb;
      const cov = sab / 64 - ma * mb;
      total += ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
      windows++;
    }
  }
  return windows > 0 ? total / windows : 1;
}
