// AssemblyScript source of wasm/yuv420.wasm (build: `npm run build:wasm`), loaded by src/inference/render/yuv420-wasm.ts.
//
// RGBA → yuv420p for a box of a frame, the same arithmetic as rgbaToYuv420 in src/inference/render/yuv420.ts (BT.601
// limited range in 8-bit fixed point, chroma from the sum of each 2×2 block), bit for bit, with 128-bit SIMD: four
// pixels of two rows, i.e. two chroma blocks, a step. `words` holds `width × height` little-endian RGBA words (red in
// the low byte), `out` the yuv420p frame. With `previous` (the pixels `out` holds the conversion of), a step whose
// eight pixels all equal them is skipped; otherwise they are copied there and converted (a block that did not change
// converts to the bytes `out` already holds). `width`, `height` and the box's edges are even, checked by the caller.

/** Converts the box (x0, y0)–(x1, y1) of `words` into `out`; with `previous` ≠ 0, only steps that changed. */
export function convert(words: usize, width: i32, height: i32, out: usize, x0: i32, y0: i32, x1: i32, y1: i32, previous: usize): void {
  const chromaWidth = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + chromaWidth * (height >> 1);
  const low = i32x4.splat(255);
  const yr = i32x4.splat(66), yg = i32x4.splat(129), yb = i32x4.splat(25), y128 = i32x4.splat(128), y16 = i32x4.splat(16);
  const ur = i32x4.splat(-38), ug = i32x4.splat(-74), ub = i32x4.splat(112);
  const vr = i32x4.splat(112), vg = i32x4.splat(-94), vb = i32x4.splat(-18);
  const c512 = i32x4.splat(512), c128 = i32x4.splat(128);
  // The last two pixels of a row when the box's width is not a multiple of four.
  const steps = x1 - ((x1 - x0) & 3);
  for (let y = y0; y < y1; y += 2) {
    let top = y * width + x0;
    let bottom = top + width;
    let u = uPlane + (y >> 1) * chromaWidth + (x0 >> 1);
    let v = vPlane + (y >> 1) * chromaWidth + (x0 >> 1);
    for (let x = x0; x < steps; x += 4, top += 4, bottom += 4, u += 2, v += 2) {
      const a = v128.load(words + (<usize>top << 2));
      const c = v128.load(words + (<usize>bottom << 2));
      if (previous) {
        const pa = previous + (<usize>top << 2);
        const pc = previous + (<usize>bottom << 2);
        if (i32x4.all_true(i32x4.eq(a, v128.load(pa))) && i32x4.all_true(i32x4.eq(c, v128.load(pc)))) continue;
        v128.store(pa, a);
        v128.store(pc, c);
      }
      const ra = v128.and(a, low), ga = v128.and(i32x4.shr_u(a, 8), low), ba = v128.and(i32x4.shr_u(a, 16), low);
      const rc = v128.and(c, low), gc = v128.and(i32x4.shr_u(c, 8), low), bc = v128.and(i32x4.shr_u(c, 16), low);
      const lumaA = i32x4.add(i32x4.shr_s(i32x4.add(i32x4.add(i32x4.add(i32x4.mul(ra, yr), i32x4.mul(ga, yg)), i32x4.mul(ba, yb)), y128), 8), y16);
      const lumaC = i32x4.add(i32x4.shr_s(i32x4.add(i32x4.add(i32x4.add(i32x4.mul(rc, yr), i32x4.mul(gc, yg)), i32x4.mul(bc, yb)), y128), 8), y16);
      const narrowA = i16x8.narrow_i32x4_s(lumaA, lumaA);
      const narrowC = i16x8.narrow_i32x4_s(lumaC, lumaC);
      v128.store32_lane(out + <usize>top, i8x16.narrow_i16x8_u(narrowA, narrowA), 0);
      v128.store32_lane(out + <usize>bottom, i8x16.narrow_i16x8_u(narrowC, narrowC), 0);
      // Each block's sums in lanes 0 and 2: the two rows added, then each pixel with its neighbour.
      const rs = i32x4.add(ra, rc), gs = i32x4.add(ga, gc), bs = i32x4.add(ba, bc);
      const r = i32x4.add(rs, v128.shuffle<i32>(rs, rs, 1, 0, 3, 2));
      const g = i32x4.add(gs, v128.shuffle<i32>(gs, gs, 1, 0, 3, 2));
      const b = i32x4.add(bs, v128.shuffle<i32>(bs, bs, 1, 0, 3, 2));
      const cu = i32x4.add(i32x4.shr_s(i32x4.add(i32x4.add(i32x4.add(i32x4.mul(r, ur), i32x4.mul(g, ug)), i32x4.mul(b, ub)), c512), 10), c128);
      const cv = i32x4.add(i32x4.shr_s(i32x4.add(i32x4.add(i32x4.add(i32x4.mul(r, vr), i32x4.mul(g, vg)), i32x4.mul(b, vb)), c512), 10), c128);
      store<u8>(out + <usize>u, <u8>i32x4.extract_lane(cu, 0));
      store<u8>(out + <usize>u + 1, <u8>i32x4.extract_lane(cu, 2));
      store<u8>(out + <usize>v, <u8>i32x4.extract_lane(cv, 0));
      store<u8>(out + <usize>v + 1, <u8>i32x4.extract_lane(cv, 2));
    }
    if (steps < x1) block(words, out, previous, top, bottom, u, v);
  }
}

/** One 2×2 block (`top`, `top + 1`, `bottom`, `bottom + 1`) and its chroma samples `u`, `v`, as rgbaToYuv420 does it. */
function block(words: usize, out: usize, previous: usize, top: i32, bottom: i32, u: i32, v: i32): void {
  const p0 = load<u32>(words + (<usize>top << 2));
  const p1 = load<u32>(words + (<usize>top << 2), 4);
  const p2 = load<u32>(words + (<usize>bottom << 2));
  const p3 = load<u32>(words + (<usize>bottom << 2), 4);
  if (previous) {
    const pt = previous + (<usize>top << 2);
    const pb = previous + (<usize>bottom << 2);
    if (p0 == load<u32>(pt) && p1 == load<u32>(pt, 4) && p2 == load<u32>(pb) && p3 == load<u32>(pb, 4)) return;
    store<u32>(pt, p0);
    store<u32>(pt, p1, 4);
    store<u32>(pb, p2);
    store<u32>(pb, p3, 4);
  }
  const r0 = <i32>(p0 & 255), g0 = <i32>((p0 >> 8) & 255), b0 = <i32>((p0 >> 16) & 255);
  const r1 = <i32>(p1 & 255), g1 = <i32>((p1 >> 8) & 255), b1 = <i32>((p1 >> 16) & 255);
  const r2 = <i32>(p2 & 255), g2 = <i32>((p2 >> 8) & 255), b2 = <i32>((p2 >> 16) & 255);
  const r3 = <i32>(p3 & 255), g3 = <i32>((p3 >> 8) & 255), b3 = <i32>((p3 >> 16) & 255);
  store<u8>(out + <usize>top, <u8>(((66 * r0 + 129 * g0 + 25 * b0 + 128) >> 8) + 16));
  store<u8>(out + <usize>top + 1, <u8>(((66 * r1 + 129 * g1 + 25 * b1 + 128) >> 8) + 16));
  store<u8>(out + <usize>bottom, <u8>(((66 * r2 + 129 * g2 + 25 * b2 + 128) >> 8) + 16));
  store<u8>(out + <usize>bottom + 1, <u8>(((66 * r3 + 129 * g3 + 25 * b3 + 128) >> 8) + 16));
  const r = r0 + r1 + r2 + r3;
  const g = g0 + g1 + g2 + g3;
  const b = b0 + b1 + b2 + b3;
  store<u8>(out + <usize>u, <u8>(((-38 * r - 74 * g + 112 * b + 512) >> 10) + 128));
  store<u8>(out + <usize>v, <u8>(((112 * r - 94 * g - 18 * b + 512) >> 10) + 128));
}
