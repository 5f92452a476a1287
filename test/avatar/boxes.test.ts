import assert from 'node:assert/strict';
import { test } from 'node:test';
import { disjoint } from '../../src/inference/render/boxes.js';
import type { Box } from '../../src/inference/render/compositor.js';

/** The pixels of `boxes` on a `size × size` grid, how often each is covered. */
function coverCount(boxes: Box[], size: number): Uint8Array {
  const grid = new Uint8Array(size * size);
  for (const b of boxes) for (let y = b.y0; y < b.y1; y++) for (let x = b.x0; x < b.x1; x++) grid[y * size + x]! += 1;
  return grid;
}

test('disjoint boxes cover every pixel of the given ones once, and few others', () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const boxes: Box[] = Array.from({ length: 1 + random(30) }, () => {
      const x0 = random(90);
      const y0 = random(90);
      return { x0, y0, x1: x0 + 1 + random(30), y1: y0 + 1 + random(12) };
    });
    const out = disjoint(boxes);
    const given = coverCount(boxes, 128);
    const drawn = coverCount(out, 128);
    let extra = 0;
    for (let i = 0; i < given.length; i++) {
      assert.ok(drawn[i]! <= 1, `round ${round}: pixel ${i} drawn ${drawn[i]} times`);
      if (given[i]! > 0) assert.equal(drawn[i], 1, `round ${round}: pixel ${i} of a given box left out`);
      else if (drawn[i]) extra++;
    }
    assert.ok(extra <= 256 * boxes.length, `round ${round}: ${extra} pixels added`);
  }
  // Strips one above the other along an edge become one box; far apart boxes stay apart.
  assert.equal(disjoint([{ x0: 10, y0: 0, x1: 12, y1: 8 }, { x0: 10, y0: 8, x1: 13, y1: 16 }]).length, 1);
  assert.equal(disjoint([{ x0: 0, y0: 0, x1: 4, y1: 40 }, { x0: 100, y0: 0, x1: 104, y1: 40 }]).length, 2);
});
