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

/** Blends `patch` into `base` (see the module comment and {@link BlendInput}). */
export function blendSeamless(input: BlendInput): void {
  const { width, height, base, patch, covered, alpha, changed } = input;
  const cell = Math.max(1, Math.round(input.cell ?? 4));
  const gw = Math.ceil(width / cell);
  const gh = Math.ceil(height / cell);
  const kind = new Uint8Array(gw * gh).fill(OUTSIDE);
  const values = new Float32Array(gw * gh * 3);
  const counts = new Uint16Array(gw * gh);
  // Cells that show the patch are unknown; cells of the band around it hold the mean difference frame − patch.
  for (let y = 0; y < height; y++) {
    const gy = (y / cell) | 0;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const g = gy * gw + ((x / cell) | 0);
      if (alpha[p]! > 0) kind[g] = UNKNOWN;
    }
  }
  // The band's typical difference (per channel, its median): pixels far from it are where the two frames' features
  // do not line up (the face's outline, a collar) and say nothing about the light; they are left out.
  const histograms = [new Uint32Array(511), new Uint32Array(511), new Uint32Array(511)];
  let bandPixels = 0;
  for (let p = 0; p < width * height; p++) {
    if (!covered[p] || alpha[p]! > 0) continue;
    const o = p * 4;
    for (let c = 0; c < 3; c++) histograms[c]![255 + base[o + c]! - patch[o + c]!]++;
    bandPixels++;
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
  const tolerance = input.tolerance ?? 28;
  for (let y = 0; y < height; y++) {
    const gy = (y / cell) | 0;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const g = gy * gw + ((x / cell) | 0);
      if (kind[g] === UNKNOWN || !covered[p] || alpha[p]! > 0) continue;
      const o = p * 4;
      const d0 = base[o]! - patch[o]!;
      const d1 = base[o + 1]! - patch[o + 1]!;
      const d2 = base[o + 2]! - patch[o + 2]!;
      if (Math.abs(d0 - median[0]!) + Math.abs(d1 - median[1]!) + Math.abs(d2 - median[2]!) > tolerance * 3) continue;
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
  // Each pixel: the patch plus the membrane (bilinear between cell centres), over the frame by alpha.
  for (let y = 0; y < height; y++) {
    const fy = Math.min(gh - 1, Math.max(0, (y + 0.5) / cell - 0.5));
    const y0 = fy | 0;
    const y1 = Math.min(gh - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      const a = alpha[p]!;
      if (a <= 0) continue;
      const fx = Math.min(gw - 1, Math.max(0, (x + 0.5) / cell - 0.5));
      const x0 = fx | 0;
      const x1 = Math.min(gw - 1, x0 + 1);
      const wx = fx - x0;
      const g00 = 3 * (y0 * gw + x0);
      const g10 = 3 * (y0 * gw + x1);
      const g01 = 3 * (y1 * gw + x0);
      const g11 = 3 * (y1 * gw + x1);
      const o = p * 4;
      for (let c = 0; c < 3; c++) {
        const m = (values[g00 + c]! * (1 - wx) + values[g10 + c]! * wx) * (1 - wy) + (values[g01 + c]! * (1 - wx) + values[g11 + c]! * wx) * wy;
        const v = patch[o + c]! + m;
        const clamped = v < 0 ? 0 : v > 255 ? 255 : v;
        base[o + c] = (base[o + c]! * (1 - a) + clamped * a + 0.5) | 0;
      }
      if (changed) changed[p] = 1;
    }
  }
}

/** Successive over-relaxation of Laplace's equation over the unknown cells, the fixed ones as boundary values. */
function solveMembrane(kind: Uint8Array, values: Float32Array, gw: number, gh: number): void {
  const omega = 1.85;
  const iterations = Math.max(30, Math.round(1.5 * Math.max(gw, gh)));
  // The unknown cells and their usable neighbours (not OUTSIDE: no flux across the grid's outer part), listed once.
  const cells: number[] = [];
  const neighbours: number[] = [];
  const starts: number[] = [0];
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const g = gy * gw + gx;
      if (kind[g] !== UNKNOWN) continue;
      const before = neighbours.length;
      if (gx > 0 && kind[g - 1] !== OUTSIDE) neighbours.push(g - 1);
      if (gx < gw - 1 && kind[g + 1] !== OUTSIDE) neighbours.push(g + 1);
      if (gy > 0 && kind[g - gw] !== OUTSIDE) neighbours.push(g - gw);
      if (gy < gh - 1 && kind[g + gw] !== OUTSIDE) neighbours.push(g + gw);
      if (neighbours.length === before) continue;
      cells.push(g);
      starts.push(neighbours.length);
    }
  }
  for (let iteration = 0; iteration < iterations; iteration++) {
    for (let c = 0; c < cells.length; c++) {
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
