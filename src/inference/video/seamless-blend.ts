/**
 * Seamless blending of a patch drawn from another frame into this one (the membrane of Pérez et al.'s Poisson image
 * editing, as Farbman et al. compute it for cloning): the difference between the frame and the patch along the
 * patch's edge is spread smoothly over its inside (a harmonic membrane), and added to the patch, so that it meets
 * the frame without a seam however the light on the face changed between the two frames; its own texture (the
 * mouth, the skin's grain) stays. The membrane is smooth, so it is solved on a coarse grid (a few pixels a cell) and
 * interpolated: a fraction of a millisecond for a face's lower half.
 */

/** A patch to blend, all arrays over the same `width × height` box. */
export interface BlendInput {
  width: number;
  height: number;
  /** The frame's pixels in the box, RGBA; the result is written here. */
  base: Uint8Array;
  /** The patch's pixels in the box, RGBA (valid where `covered`). */
  patch: Uint8Array;
  /** Per pixel: whether `patch` holds a pixel there. */
  covered: Uint8Array;
  /**
   * Per pixel, how much of the patch shows (0–1): 1 inside, falling to 0 at its edge. Covered pixels with 0 (a band
   * around the edge) give the membrane its values; the patch must cover a band of a few cells there.
   */
  alpha: Float32Array;
  /** Grid cell size in pixels (default 4). */
  cell?: number;
  /**
   * A band pixel whose difference lies further than this from the band's median (mean over the channels, default
   * 28) is left out: there the two frames' features do not line up, and it says nothing about the light.
   */
  tolerance?: number;
  /** Per pixel written (alpha > 0): set to 1 (optional). */
  changed?: Uint8Array;
}

const UNKNOWN = 0;
const FIXED = 1;
const OUTSIDE = 2;

/**
 * Arrays kept between calls (a video blends a patch per frame, and allocating them each time kept the garbage
 * collector busy): the finest grid's, the per-column tables, the relaxation's lists. Each is replaced by a larger one
 * when a larger patch comes; views of the right length are handed out. JavaScript runs one call at a time on a
 * thread, so one set per thread is enough.
 */
const scratch = {
  kind: new Uint8Array(0),
  values: new Float32Array(0),
  counts: new Uint16Array(0),
  column: new Int32Array(0),
  x0s: new Int32Array(0),
  wxs: new Float32Array(0),
  membraneRow: new Float32Array(0),
  histograms: [new Uint32Array(511), new Uint32Array(511), new Uint32Array(511)] as const,
  cells: new Int32Array(0),
  neighbours: new Int32Array(0),
  starts: new Int32Array(0),
};

/** The arrays of {@link scratch} that grow. */
type Grown = Exclude<keyof typeof scratch, 'histograms'>;

/** `scratch[name]` as a view of `length` values, the array replaced by a new one first when it holds fewer. */
function kept<K extends Grown>(name: K, length: number): (typeof scratch)[K] {
  const arrays = scratch as Record<Grown, Uint8Array | Uint16Array | Int32Array | Float32Array>;
  const buffer = arrays[name];
  if (buffer.length < length) arrays[name] = new (buffer.constructor as new (length: number) => typeof buffer)(length);
  return arrays[name].subarray(0, length) as (typeof scratch)[K];
}

/** Blends `patch` into `base` (see the module comment and {@link BlendInput}). */
export function blendSeamless(input: BlendInput): void {
  const { width, height, base, patch, covered, alpha, changed } = input;
  const cell = Math.max(1, Math.round(input.cell ?? 4));
  const gw = Math.ceil(width / cell);
  const gh = Math.ceil(height / cell);
  const kind = kept('kind', gw * gh).fill(OUTSIDE);
  const values = kept('values', gw * gh * 3).fill(0);
  const counts = kept('counts', gw * gh).fill(0);
  const column = kept('column', width);
  for (let x = 0; x < width; x++) column[x] = (x / cell) | 0;
  // Cells that show the patch are unknown. The band's typical difference (per channel, its median): band pixels far
  // from it are where the two frames' features do not line up (the face's outline, a collar) and say nothing about
  // the light; they are left out.
  const histograms = scratch.histograms;
  for (const h of histograms) h.fill(0);
  let bandPixels = 0;
  for (let y = 0; y < height; y++) {
    const row = ((y / cell) | 0) * gw;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      if (alpha[p]! > 0) kind[row + column[x]!] = UNKNOWN;
      else if (covered[p] && ((x | y) & 1) === 0) {
        // A quarter of the band (every other pixel each way) gives its median.
        const o = p * 4;
        histograms[0][255 + base[o]! - patch[o]!]++;
        histograms[1][255 + base[o + 1]! - patch[o + 1]!]++;
        histograms[2][255 + base[o + 2]! - patch[o + 2]!]++;
        bandPixels++;
      }
    }
  }
  const median = [0, 0, 0];
  for (let c = 0; c < 3; c++) {
    const h = histograms[c]!;
    let seen = 0;
    for (let k = 0; k < 511; k++) {
      seen += h[k]!;
      if (seen * 2 >= bandPixels) {
        median[c] = k - 255;
        break;
      }
    }
  }
  const [m0, m1, m2] = median as [number, number, number];
  const limit = (input.tolerance ?? 28) * 3;
  for (let y = 0; y < height; y++) {
    const row = ((y / cell) | 0) * gw;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const g = row + column[x]!;
      if (kind[g] === UNKNOWN || !covered[p] || alpha[p]! > 0) continue;
      const o = p * 4;
      const d0 = base[o]! - patch[o]!;
      const d1 = base[o + 1]! - patch[o + 1]!;
      const d2 = base[o + 2]! - patch[o + 2]!;
      if (Math.abs(d0 - m0) + Math.abs(d1 - m1) + Math.abs(d2 - m2) > limit) continue;
      values[3 * g] += d0;
      values[3 * g + 1] += d1;
      values[3 * g + 2] += d2;
      counts[g]++;
    }
  }
  let mean0 = 0;
  let mean1 = 0;
  let mean2 = 0;
  let fixed = 0;
  for (let g = 0; g < gw * gh; g++) {
    if (kind[g] === UNKNOWN || counts[g] === 0) continue;
    kind[g] = FIXED;
    values[3 * g] /= counts[g]!;
    values[3 * g + 1] /= counts[g]!;
    values[3 * g + 2] /= counts[g]!;
    mean0 += values[3 * g]!;
    mean1 += values[3 * g + 1]!;
    mean2 += values[3 * g + 2]!;
    fixed++;
  }
  if (fixed > 0) {
    mean0 /= fixed;
    mean1 /= fixed;
    mean2 /= fixed;
  }
  for (let g = 0; g < gw * gh; g++) {
    if (kind[g] !== UNKNOWN) continue;
    values[3 * g] = mean0;
    values[3 * g + 1] = mean1;
    values[3 * g + 2] = mean2;
  }
  if (fixed > 0) solveMembrane(kind, values, gw, gh);
  fillOutside(kind, values, gw, gh);
  // Each pixel: the patch plus the membrane (bilinear between cell centres: a row of it is interpolated once per pixel
  // row, then along it), over the frame by alpha.
  const x0s = kept('x0s', width);
  const wxs = kept('wxs', width);
  for (let x = 0; x < width; x++) {
    const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / cell - 0.5));
    x0s[x] = fx | 0;
    wxs[x] = fx - (fx | 0);
  }
  const membraneRow = kept('membraneRow', gw * 3 + 3);
  for (let y = 0; y < height; y++) {
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / cell - 0.5));
    const y0 = fy | 0;
    const y1 = Math.min(gh - 1, y0 + 1);
    const wy = fy - y0;
    for (let k = 0; k < gw * 3; k++) membraneRow[k] = values[y0 * gw * 3 + k]! * (1 - wy) + values[y1 * gw * 3 + k]! * wy;
    // The last cell's right neighbour is itself.
    membraneRow[gw * 3] = membraneRow[gw * 3 - 3]!;
    membraneRow[gw * 3 + 1] = membraneRow[gw * 3 - 2]!;
    membraneRow[gw * 3 + 2] = membraneRow[gw * 3 - 1]!;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const a = alpha[p]!;
      if (a <= 0) continue;
      const g = 3 * x0s[x]!;
      const wx = wxs[x]!;
      const o = p * 4;
      const keep = 1 - a;
      const v0 = patch[o]! + membraneRow[g]! + (membraneRow[g + 3]! - membraneRow[g]!) * wx;
      const v1 = patch[o + 1]! + membraneRow[g + 1]! + (membraneRow[g + 4]! - membraneRow[g + 1]!) * wx;
      const v2 = patch[o + 2]! + membraneRow[g + 2]! + (membraneRow[g + 5]! - membraneRow[g + 2]!) * wx;
      base[o] = (base[o]! * keep + (v0 < 0 ? 0 : v0 > 255 ? 255 : v0) * a + 0.5) | 0;
      base[o + 1] = (base[o + 1]! * keep + (v1 < 0 ? 0 : v1 > 255 ? 255 : v1) * a + 0.5) | 0;
      base[o + 2] = (base[o + 2]! * keep + (v2 < 0 ? 0 : v2 > 255 ? 255 : v2) * a + 0.5) | 0;
      if (changed) changed[p] = 1;
    }
  }
}

/** Below this many cells across (either way) the membrane is solved on its grid directly, without a coarser one. */
const COARSEST = 8;

/**
 * Laplace's equation over the unknown cells, the fixed ones as boundary values, coarse to fine: on a grid of half the
 * cells each way first (recursively, down to {@link COARSEST} cells across), whose solution starts the fine grid's
 * relaxation, which then only has to settle the detail near the boundary. A fraction of the relaxation sweeps the
 * fine grid alone needs for the same result.
 */
function solveMembrane(kind: Uint8Array, values: Float32Array, gw: number, gh: number): void {
  if (Math.min(gw, gh) < COARSEST) {
    relax(kind, values, gw, gh, Math.max(30, Math.round(1.5 * Math.max(gw, gh))), 1.85);
    return;
  }
  const cw = Math.ceil(gw / 2);
  const ch = Math.ceil(gh / 2);
  const coarseKind = new Uint8Array(cw * ch).fill(OUTSIDE);
  const coarse = new Float32Array(cw * ch * 3);
  const fixedCount = new Uint8Array(cw * ch);
  // A coarse cell is fixed (the mean of its fixed cells) if any of its four is; else unknown if any is.
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const g = gy * gw + gx;
      const c = (gy >> 1) * cw + (gx >> 1);
      if (kind[g] === FIXED) {
        if (fixedCount[c] === 0) coarse.fill(0, 3 * c, 3 * c + 3);
        coarse[3 * c] += values[3 * g]!;
        coarse[3 * c + 1] += values[3 * g + 1]!;
        coarse[3 * c + 2] += values[3 * g + 2]!;
        fixedCount[c]++;
        coarseKind[c] = FIXED;
      } else if (kind[g] === UNKNOWN && coarseKind[c] === OUTSIDE) {
        coarseKind[c] = UNKNOWN;
        coarse[3 * c] = values[3 * g]!;
        coarse[3 * c + 1] = values[3 * g + 1]!;
        coarse[3 * c + 2] = values[3 * g + 2]!;
      }
    }
  }
  for (let c = 0; c < cw * ch; c++) {
    const n = fixedCount[c]!;
    if (n === 0) continue;
    coarse[3 * c] /= n;
    coarse[3 * c + 1] /= n;
    coarse[3 * c + 2] /= n;
  }
  solveMembrane(coarseKind, coarse, cw, ch);
  // The coarse solution, bilinear between its cells' centres, starts the unknown fine cells.
  for (let gy = 0; gy < gh; gy++) {
    const fy = Math.min(ch - 1, Math.max(0, (gy + 0.5) / 2 - 0.5));
    const y0 = fy | 0;
    const y1 = Math.min(ch - 1, y0 + 1);
    const wy = fy - y0;
    for (let gx = 0; gx < gw; gx++) {
      const g = gy * gw + gx;
      if (kind[g] !== UNKNOWN) continue;
      const fx = Math.min(cw - 1, Math.max(0, (gx + 0.5) / 2 - 0.5));
      const x0 = fx | 0;
      const x1 = Math.min(cw - 1, x0 + 1);
      const wx = fx - x0;
      for (let k = 0; k < 3; k++) {
        const top = coarse[3 * (y0 * cw + x0) + k]! * (1 - wx) + coarse[3 * (y0 * cw + x1) + k]! * wx;
        const bottom = coarse[3 * (y1 * cw + x0) + k]! * (1 - wx) + coarse[3 * (y1 * cw + x1) + k]! * wx;
        values[3 * g + k] = top * (1 - wy) + bottom * wy;
      }
    }
  }
  relax(kind, values, gw, gh, Math.max(FINE_SWEEPS, Math.round(0.4 * Math.max(gw, gh))), 1.6);
}

/** Relaxation sweeps on a grid started from a coarser grid's solution (at least). */
const FINE_SWEEPS = 10;

/** `iterations` sweeps of successive over-relaxation (`omega`) of Laplace's equation over the unknown cells. */
function relax(kind: Uint8Array, values: Float32Array, gw: number, gh: number, iterations: number, omega: number): void {
  // The unknown cells and their usable neighbours (not OUTSIDE: no flux across the grid's outer part), listed once.
  const cells = kept('cells', gw * gh);
  const neighbours = kept('neighbours', gw * gh * 4);
  const starts = kept('starts', gw * gh + 1);
  let count = 0;
  let listed = 0;
  starts[0] = 0;
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const g = gy * gw + gx;
      if (kind[g] !== UNKNOWN) continue;
      const before = listed;
      if (gx > 0 && kind[g - 1] !== OUTSIDE) neighbours[listed++] = g - 1;
      if (gx < gw - 1 && kind[g + 1] !== OUTSIDE) neighbours[listed++] = g + 1;
      if (gy > 0 && kind[g - gw] !== OUTSIDE) neighbours[listed++] = g - gw;
      if (gy < gh - 1 && kind[g + gw] !== OUTSIDE) neighbours[listed++] = g + gw;
      if (listed === before) continue;
      cells[count++] = g;
      starts[count] = listed;
    }
  }
  for (let iteration = 0; iteration < iterations; iteration++) {
    for (let c = 0; c < count; c++) {
      const g = cells[c]!;
      const from = starts[c]!;
      const to = starts[c + 1]!;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      for (let k = from; k < to; k++) {
        const h = 3 * neighbours[k]!;
        s0 += values[h]!;
        s1 += values[h + 1]!;
        s2 += values[h + 2]!;
      }
      const n = to - from;
      values[3 * g] += omega * (s0 / n - values[3 * g]!);
      values[3 * g + 1] += omega * (s1 / n - values[3 * g + 1]!);
      values[3 * g + 2] += omega * (s2 / n - values[3 * g + 2]!);
    }
  }
}

/** Gives cells outside everything their neighbours' values (for interpolation at the patch's edge). */
function fillOutside(kind: Uint8Array, values: Float32Array, gw: number, gh: number): void {
  const known = new Uint8Array(kind.length);
  for (let g = 0; g < kind.length; g++) known[g] = kind[g] === OUTSIDE ? 0 : 1;
  for (let pass = 0; pass < 3; pass++) {
    const next = known.slice();
    for (let gy = 0; gy < gh; gy++) {
      for (let gx = 0; gx < gw; gx++) {
        const g = gy * gw + gx;
        if (known[g]) continue;
        let n = 0;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        for (let k = 0; k < 4; k++) {
          const x = gx + (k === 0 ? -1 : k === 1 ? 1 : 0);
          const y = gy + (k === 2 ? -1 : k === 3 ? 1 : 0);
          if (x < 0 || y < 0 || x >= gw || y >= gh || !known[y * gw + x]) continue;
          const h = 3 * (y * gw + x);
          s0 += values[h]!;
          s1 += values[h + 1]!;
          s2 += values[h + 2]!;
          n++;
        }
        if (n === 0) continue;
        values[3 * g] = s0 / n;
        values[3 * g + 1] = s1 / n;
        values[3 * g + 2] = s2 / n;
        next[g] = 1;
      }
    }
    known.set(next);
  }
}
