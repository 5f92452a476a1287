// AssemblyScript source of wasm/stft.wasm (build: `npm run build:wasm`), loaded by src/inference/separation/stft-wasm.ts.
//
// The frame transforms of the separation's STFT (stft.ts's FrameTransform: periodic sqrt-Hann window, `n` a power of
// two): the windowed FFT of one channel of interleaved f32 samples (a real FFT, computed as a complex FFT of n/2
// points), and the windowed inverse of two one-sided spectra at once (one complex inverse FFT of n points of `A + iB`).
// In f64 throughout, as fft.js computes; 128-bit SIMD: one complex value a v128. Radix 2, decimation in time, the
// input placed in bit-reversed order as it is loaded.
//
// The caller lays out the memory and tells `setup` where (every address 16-byte aligned):
//   tw      n/2 twiddles e^{-2πik/n}, 32 bytes each: (re, re, -im, im) as f64
//   win     the window, n f64
//   revN    n u32: bit reversal of log2(n) bits; revM: n/2 u32, of log2(n/2) bits
//   work    n complex f64 (16 bytes each)

let N: i32 = 0;
let TW: usize = 0;
let WIN: usize = 0;
let REV_N: usize = 0;
let REV_M: usize = 0;
let WORK: usize = 0;

/** Where the tables and the work area lie, for transforms of `n` points. */
export function setup(n: i32, tw: usize, win: usize, revN: usize, revM: usize, work: usize): void {
  N = n;
  TW = tw;
  WIN = win;
  REV_N = revN;
  REV_M = revM;
  WORK = work;
}

/** `b × w` with w's entry at `entry`; `s` = (1, 1) for w, (-1, -1) for its conjugate. */
// @ts-ignore: decorator
@inline function twiddled(b: v128, entry: usize, s: v128): v128 {
  const swapped = v128.shuffle<f64>(b, b, 1, 0);
  return f64x2.add(f64x2.mul(b, v128.load(entry)), f64x2.mul(f64x2.mul(swapped, v128.load(entry, 16)), s));
}

/**
 * In-place FFT of the `m` complex values at WORK, already in bit-reversed order; unscaled; with conjugate twiddles
 * if `inverse`.
 */
function butterflies(m: i32, inverse: bool): void {
  const s = f64x2.splat(inverse ? -1.0 : 1.0);
  // len 2: the twiddle is 1.
  for (let i = 0; i < m; i += 2) {
    const p = WORK + (<usize>i << 4);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    v128.store(p, f64x2.add(a, b));
    v128.store(p, f64x2.sub(a, b), 16);
  }
  // len 4: the twiddles are 1 and ∓i (-i·(r + i·m) = m - i·r; its conjugate's product is -m + i·r).
  const quarter = inverse ? f64x2(-1.0, 1.0) : f64x2(1.0, -1.0);
  for (let i = 0; i < m; i += 4) {
    const p = WORK + (<usize>i << 4);
    const a0 = v128.load(p);
    const a1 = v128.load(p, 16);
    const a2 = v128.load(p, 32);
    const b3 = v128.load(p, 48);
    const t = f64x2.mul(v128.shuffle<f64>(b3, b3, 1, 0), quarter);
    v128.store(p, f64x2.add(a0, a2));
    v128.store(p, f64x2.add(a1, t), 16);
    v128.store(p, f64x2.sub(a0, a2), 32);
    v128.store(p, f64x2.sub(a1, t), 48);
  }
  for (let len = 8; len <= m; len <<= 1) {
    const half = len >> 1;
    // W_len^j = W_n^(j·n/len): entries `step` apart.
    const step = <usize>(N / len) << 5;
    for (let i = 0; i < m; i += len) {
      let pa = WORK + (<usize>i << 4);
      const end = pa + (<usize>half << 4);
      const offset = <usize>half << 4;
      let entry = TW;
      for (; pa < end; pa += 16) {
        const a = v128.load(pa);
        const t = twiddled(v128.load(pa + offset), entry, s);
        v128.store(pa, f64x2.add(a, t));
        v128.store(pa + offset, f64x2.sub(a, t));
        entry += step;
      }
    }
  }
}

/**
 * The windowed FFT of channel `channel` of the `n` samples at `src` (f32, `stride` values a sample): bins 0 to n/2 as
 * (re, im) f32 pairs at `out`.
 */
export function analyze(src: usize, stride: i32, channel: i32, out: usize): void {
  const m = N >> 1;
  const step = <usize>stride << 2;
  let p = src + (<usize>channel << 2);
  // z[j] = x[2j] + i·x[2j+1], windowed, into its bit-reversed place.
  for (let j = 0; j < m; j++) {
    const w = WIN + (<usize>j << 4);
    const re = <f64>load<f32>(p) * load<f64>(w);
    const im = <f64>load<f32>(p + step) * load<f64>(w, 8);
    p += step << 1;
    const q = WORK + (<usize>load<u32>(REV_M + (<usize>j << 2)) << 4);
    store<f64>(q, re);
    store<f64>(q, im, 8);
  }
  butterflies(m, false);
  // X[k] = E + W_n^k·O, E = (Z[k] + conj Z[m-k]) / 2, O = -i·(Z[k] - conj Z[m-k]) / 2.
  const z0re = load<f64>(WORK);
  const z0im = load<f64>(WORK, 8);
  store<f32>(out, <f32>(z0re + z0im));
  store<f32>(out, 0, 4);
  store<f32>(out + (<usize>m << 3), <f32>(z0re - z0im));
  store<f32>(out + (<usize>m << 3), 0, 4);
  const half = f64x2.splat(0.5);
  const conj = f64x2(1.0, -1.0);
  const one = f64x2.splat(1.0);
  for (let k = 1; k < m; k++) {
    const zk = v128.load(WORK + (<usize>k << 4));
    const zc = f64x2.mul(v128.load(WORK + (<usize>(m - k) << 4)), conj);
    const e = f64x2.mul(f64x2.add(zk, zc), half);
    const d = f64x2.sub(zk, zc);
    // -i·(dr + i·di) = di - i·dr
    const o = f64x2.mul(f64x2.mul(v128.shuffle<f64>(d, d, 1, 0), conj), half);
    const x = f64x2.add(e, twiddled(o, TW + (<usize>k << 5), one));
    const q = out + (<usize>k << 3);
    store<f32>(q, <f32>f64x2.extract_lane(x, 0));
    store<f32>(q, <f32>f64x2.extract_lane(x, 1), 4);
  }
}

/**
 * The windowed inverse FFTs of the one-sided spectra at `specA` and `specB` (n/2 + 1 (re, im) f32 pairs each), each
 * value times its bin's gain at `mask` (n/2 + 1 f32; the product rounded to f32): `n` f32 samples each at `outA` and
 * `outB` (scaled by 1/n, as fft.js's inverse).
 */
export function synthesizePair(specA: usize, specB: usize, mask: usize, outA: usize, outB: usize): void {
  const n = N;
  const bins = (n >> 1) + 1;
  // The spectrum of a + ib: A + iB for k < bins, and by conjugate symmetry of A and B above.
  for (let k = 0; k < n; k++) {
    const j = k < bins ? k : n - k;
    const g = load<f32>(mask + (<usize>j << 2));
    const a = specA + (<usize>j << 3);
    const b = specB + (<usize>j << 3);
    const ar = <f64>(load<f32>(a) * g);
    const ai = <f64>(load<f32>(a, 4) * g);
    const br = <f64>(load<f32>(b) * g);
    const bi = <f64>(load<f32>(b, 4) * g);
    const q = WORK + (<usize>load<u32>(REV_N + (<usize>k << 2)) << 4);
    if (k < bins) {
      store<f64>(q, ar - bi);
      store<f64>(q, ai + br, 8);
    } else {
      store<f64>(q, ar + bi);
      store<f64>(q, br - ai, 8);
    }
  }
  butterflies(n, true);
  const scale = 1.0 / <f64>n;
  for (let i = 0; i < n; i++) {
    const w = load<f64>(WIN + (<usize>i << 3)) * scale;
    const p = WORK + (<usize>i << 4);
    store<f32>(outA + (<usize>i << 2), <f32>(load<f64>(p) * w));
    store<f32>(outB + (<usize>i << 2), <f32>(load<f64>(p, 8) * w));
  }
}
