/** Rectangles of pixels: their union, and sets of them made disjoint for drawing each pixel once (FrameRenderer). */
import type { Box } from './compositor.js';

/** Whether `a` and `b` are the same rectangle (or both none). */
export function sameBox(a: Box | undefined, b: Box | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.x0 === b.x0 && a.y0 === b.y0 && a.x1 === b.x1 && a.y1 === b.y1);
}

/** The smallest rectangle holding `a` and `b`. */
export function union(a: Box, b: Box): Box {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

/**
 * `boxes` as rectangles that do not overlap and cover the same pixels, or a few more: two whose union adds at most
 * {@link MERGE_WASTE} pixels to theirs become their union, until none do, and the parts of each that earlier ones
 * cover are cut away. Fewer boxes save each one's fixed cost; no overlaps, drawing pixels twice.
 */
export function disjoint(boxes: Box[]): Box[] {
  const merged = [...boxes];
  for (let i = 0; i < merged.length; i++) {
    for (let j = i + 1; j < merged.length; j++) {
      const a = merged[i]!;
      const b = merged[j]!;
      // The pixels the union adds to theirs: its area less theirs and their overlap's (no rectangle made per pair).
      const both = Math.max(0, Math.max(a.x1, b.x1) - Math.min(a.x0, b.x0)) * Math.max(0, Math.max(a.y1, b.y1) - Math.min(a.y0, b.y0));
      const common = Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));
      if (both - (area(a) + area(b) - common) <= MERGE_WASTE) {
        merged[i] = union(a, b);
        merged.splice(j, 1);
        j = i; // the union may now lie close to a box already passed
      }
    }
  }
  const out: Box[] = [];
  for (const box of merged) {
    let pieces = [box];
    for (const earlier of out) {
      if (pieces.some((piece) => overlaps(piece, earlier))) pieces = pieces.flatMap((piece) => cut(piece, earlier));
    }
    out.push(...pieces);
  }
  return out;
}

/** Whether `a` and `b` share a pixel. */
function overlaps(a: Box, b: Box): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/** Pixels a union of two boxes may add to theirs to be drawn as one (a box costs about as much as this many pixels). */
const MERGE_WASTE = 256;

/** The pixels of a rectangle (none when it is empty). */
function area(box: Box): number {
  return Math.max(0, box.x1 - box.x0) * Math.max(0, box.y1 - box.y0);
}

/** `box` less `hole`: up to four rectangles (the bands above and below the hole, and beside it). */
function cut(box: Box, hole: Box): Box[] {
  if (!overlaps(box, hole)) return [box];
  const pieces: Box[] = [];
  if (box.y0 < hole.y0) pieces.push({ ...box, y1: hole.y0 });
  if (hole.y1 < box.y1) pieces.push({ ...box, y0: hole.y1 });
  const y0 = Math.max(box.y0, hole.y0);
  const y1 = Math.min(box.y1, hole.y1);
  if (box.x0 < hole.x0) pieces.push({ x0: box.x0, y0, x1: hole.x0, y1 });
  if (hole.x1 < box.x1) pieces.push({ x0: hole.x1, y0, x1: box.x1, y1 });
  return pieces;
}
