/**
 * The loop's choice: among joins that look alike in the thumbnails and the head's pose, the one where the clip's own
 * step (what the join shows) is calmest in detail.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseLoop, lumaSample, sampleStep, THUMB_HEIGHT, THUMB_WIDTH, type LoopFrame } from '../../src/inference/video/loop-points.js';

describe('loop points', () => {
  it('starts the loop where the clip changes least in detail from the frame before', () => {
    // 100 frames alike in the thumbnails and without a face; the clip's detail changes a lot from each frame to the
    // next except into frame 17.
    const frames: LoopFrame[] = Array.from({ length: 100 }, (_, t) => ({ thumb: new Uint8Array(THUMB_WIDTH * THUMB_HEIGHT).fill(80), step: t === 17 ? 0.2 : 3 }));
    const loop = chooseLoop(frames, 10, new Array<boolean>(100).fill(false));
    assert.equal(loop.start, 17);
    // Without the detail, any start is as good: the first allowed.
    const flat = chooseLoop(frames.map(({ thumb }) => ({ thumb })), 10, new Array<boolean>(100).fill(false));
    assert.equal(flat.start, 10);
  });

  it('measures the change in detail on a sparse sample of the luma', () => {
    const width = 64;
    const height = 48;
    const a = new Uint8Array(width * height * 1.5).fill(100);
    const b = a.slice();
    // A fine pattern that a thumbnail's cells average away: half the sampled pixels 8 brighter, half 8 darker.
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) b[y * width + x] = 100 + (((x + y) >> 2) % 2 === 0 ? 8 : -8);
    assert.equal(sampleStep(lumaSample(a, width, height), lumaSample(a, width, height)), 0);
    assert.equal(sampleStep(lumaSample(a, width, height), lumaSample(b, width, height)), 8);
  });
});
