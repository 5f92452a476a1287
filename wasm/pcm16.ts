// AssemblyScript source of wasm/pcm16.wasm (build: `npm run build:wasm`), loaded by src/inference/media/pcm16-wasm.ts.
//
// f32 samples → 16-bit PCM as swresample converts them for ffmpeg's pcm_s16le encoder: each value times 32 768,
// rounded to the nearest integer (ties to even) and clipped to [−32 768, 32 767], bit for bit the TypeScript loop of
// wav-writer.ts (NaN becomes 0 in both), with 128-bit SIMD: eight samples a step. `src` holds `count` f32 values,
// `dst` receives `count` i16 values; both 16-byte aligned (the caller's layout).

/** Converts `count` f32 values at `src` into i16 values at `dst`. */
export function convert(src: usize, dst: usize, count: i32): void {
  const scale = f32x4.splat(32768);
  const steps = count & ~7;
  let i = 0;
  for (; i < steps; i += 8) {
    const a = f32x4.nearest(f32x4.mul(v128.load(src + (<usize>i << 2)), scale));
    const b = f32x4.nearest(f32x4.mul(v128.load(src + (<usize>(i + 4) << 2)), scale));
    // Saturating: to i32 (values past the i32 range clip there), then to i16.
    v128.store(dst + (<usize>i << 1), i16x8.narrow_i32x4_s(i32x4.trunc_sat_f32x4_s(a), i32x4.trunc_sat_f32x4_s(b)));
  }
  for (; i < count; i++) {
    const value = nearest<f32>(load<f32>(src + (<usize>i << 2)) * 32768);
    store<i16>(dst + (<usize>i << 1), <i16>(value > 32767 ? 32767 : value < -32768 ? -32768 : value != value ? 0 : <i32>value));
  }
}
