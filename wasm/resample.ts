// AssemblyScript source of wasm/resample.wasm (build: `npm run build:wasm`), loaded by src/inference/media/resample-wasm.ts.
//
// The inner loop of media/resample.ts's band-limited resampler with 128-bit SIMD, bit for bit the TypeScript loop:
// output `n` is the sum over the window's taps of filter × input, float64 products added in four running sums (taps
// 0, 1, 2, 3 modulo 4: the lanes of two f64x2 sums), the leftover taps into the first, combined as s0 + s1 + (s2 + s3)
// and rounded to float32. No fused multiply-add in either. `filters` holds `up` filters of `taps` f64 values, phase
// after phase; `buffer` the input (f64) from absolute sample `bufferStart` on; `out` receives `count` f32 values.

/** Outputs `first` … `first + count − 1` of the ratio `up` / `down` (see resample.ts's emit). */
export function run(filters: usize, buffer: usize, out: usize, count: i32, first: f64, up: i32, down: i32, taps: i32, bufferStart: f64): void {
  const half = taps >> 1;
  const start = <i64>first;
  const origin = <i64>bufferStart;
  const quads = taps & ~3;
  for (let i = 0; i < count; i++) {
    const position = (start + i) * <i64>down;
    const base = position / <i64>up;
    const phase = <i32>(position - base * <i64>up);
    const from = buffer + (<usize>(base - <i64>half + 1 - origin) << 3);
    const filter = filters + (<usize>(phase * taps) << 3);
    let a = f64x2.splat(0);
    let b = f64x2.splat(0);
    let k = 0;
    for (; k < quads; k += 4) {
      const at = <usize>k << 3;
      a = f64x2.add(a, f64x2.mul(v128.load(filter + at), v128.load(from + at)));
      b = f64x2.add(b, f64x2.mul(v128.load(filter + at, 16), v128.load(from + at, 16)));
    }
    let s0 = f64x2.extract_lane(a, 0);
    for (; k < taps; k++) s0 += load<f64>(filter + (<usize>k << 3)) * load<f64>(from + (<usize>k << 3));
    store<f32>(out + (<usize>i << 2), <f32>(s0 + f64x2.extract_lane(a, 1) + (f64x2.extract_lane(b, 0) + f64x2.extract_lane(b, 1))));
  }
}
