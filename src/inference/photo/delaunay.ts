/**
 * Delaunay triangulation of a small point set (Bowyer–Watson, O(n²)): the photo renderer triangulates about
 * a hundred face points once per avatar, so simplicity beats speed here.
 */

/** Triangles of the Delaunay triangulation of `xs`/`ys`, as vertex index triples, counter-clockwise in y-down pixels. */
export function delaunay(xs: ArrayLike<number>, ys: ArrayLike<number>): Array<[number, number, number]> {
  const n = xs.length;
  if (n < 3) return [];
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, xs[i]!);
    maxX = Math.max(maxX, xs[i]!);
    minY = Math.min(minY, ys[i]!);
    maxY = Math.max(maxY, ys[i]!);
  }
  const span = Math.max(maxX - minX, maxY - minY, 1) * 20;
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  // The points, then the three corners of a super-triangle that holds them all.
  const px = [...Array.from(xs), cx - span, cx + span, cx];
  const py = [...Array.from(ys), cy - span, cy - span, cy + span];
  type Tri = { a: number; b: number; c: number; x: number; y: number; r2: number };
  const make = (a: number, b: number, c: number): Tri => {
    const ax = px[a]!;
    const ay = py[a]!;
    const bx = px[b]!;
    const by = py[b]!;
    const qx = px[c]!;
    const qy = py[c]!;
    const d = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by));
    const a2 = ax * ax + ay * ay;
    const b2 = bx * bx + by * by;
    const c2 = qx * qx + qy * qy;
    const x = (a2 * (by - qy) + b2 * (qy - ay) + c2 * (ay - by)) / d;
    const y = (a2 * (qx - bx) + b2 * (ax - qx) + c2 * (bx - ax)) / d;
    return { a, b, c, x, y, r2: (ax - x) ** 2 + (ay - y) ** 2 };
  };
  let tris: Tri[] = [make(n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const x = px[i]!;
    const y = py[i]!;
    const bad: Tri[] = [];
    const kept: Tri[] = [];
    for (const t of tris) ((x - t.x) ** 2 + (y - t.y) ** 2 < t.r2 * (1 - 1e-12) ? bad : kept).push(t);
    // The hole's boundary: edges of exactly one removed triangle.
    const edges = new Map<string, [number, number]>();
    for (const t of bad) {
      for (const [p, q] of [
        [t.a, t.b],
        [t.b, t.c],
        [t.c, t.a],
      ] as const) {
        const key = p < q ? `${p},${q}` : `${q},${p}`;
        if (edges.has(key)) edges.delete(key);
        else edges.set(key, [p, q]);
      }
    }
    for (const [p, q] of edges.values()) kept.push(make(p, q, i));
    tris = kept;
  }
  const out: Array<[number, number, number]> = [];
  for (const t of tris) {
    if (t.a >= n || t.b >= n || t.c >= n) continue;
    const cross = (px[t.b]! - px[t.a]!) * (py[t.c]! - py[t.a]!) - (py[t.b]! - py[t.a]!) * (px[t.c]! - px[t.a]!);
    if (Math.abs(cross) < 1e-9) continue;
    out.push(cross > 0 ? [t.a, t.b, t.c] : [t.a, t.c, t.b]);
  }
  return out;
}

/**
 * Makes each of `edges` an edge of `triangles` (in place) by flipping the edges that cross it, where the
 * quadrilateral around them is convex (Sloan's method): the contours of the lips and eyes then bound
 * triangles of their own, so that a lip never borrows pixels from the teeth behind it. An edge that cannot
 * be made (none of its crossings flips) is left out; the triangles stay a valid triangulation either way.
 */
export function enforceEdges(triangles: Array<[number, number, number]>, xs: ArrayLike<number>, ys: ArrayLike<number>, edges: ReadonlyArray<readonly [number, number]>): void {
  const orient = (a: number, b: number, c: number) => (xs[b]! - xs[a]!) * (ys[c]! - ys[a]!) - (ys[b]! - ys[a]!) * (xs[c]! - xs[a]!);
  const crosses = (p: number, q: number, a: number, b: number) =>
    orient(p, q, a) * orient(p, q, b) < 0 && orient(a, b, p) * orient(a, b, q) < 0;
  const has = (p: number, q: number) => triangles.some((t) => t.includes(p) && t.includes(q));
  const ccw = (a: number, b: number, c: number): [number, number, number] => (orient(a, b, c) > 0 ? [a, b, c] : [a, c, b]);
  for (const [p, q] of edges) {
    for (let round = 0; round < 200 && !has(p, q); round++) {
      let flipped = false;
      search: for (let i = 0; i < triangles.length; i++) {
        const t = triangles[i]!;
        for (let k = 0; k < 3; k++) {
          const a = t[k]!;
          const b = t[(k + 1) % 3]!;
          if (a === p || a === q || b === p || b === q || !crosses(p, q, a, b)) continue;
          const j = triangles.findIndex((s, at) => at !== i && s.includes(a) && s.includes(b));
          if (j < 0) continue;
          const c = t[(k + 2) % 3]!;
          const d = triangles[j]!.find((v) => v !== a && v !== b)!;
          // Only a convex quadrilateral a-c-b-d can trade its diagonal ab for cd.
          if (!crosses(c, d, a, b)) continue;
          triangles[i] = ccw(c, d, a);
          triangles[j] = ccw(d, c, b);
          flipped = true;
          break search;
        }
      }
      if (!flipped) break;
    }
  }
}
