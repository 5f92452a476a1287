/**
 * RGBA → YUV 4:2:0 (planar, `yuv420p`) in plain TypeScript, for a rectangle of a frame, so that a video whose
 * frames change only in places is converted only there (see `FrameRenderer.renderYuv420Into`) and ffmpeg
 * gets frames it needs no conversion for. The coefficients are BT.601 in limited ("tv") range in 8-bit
 * fixed point, the conversion ffmpeg's swscale makes by default from RGB, so videos look as they did when
 * ffmpeg converted; chroma is the mean of each 2×2 block.
 */
import { yuv420Bytes } from '../media/raw-video.js';
import type { Box } from './compositor.js';

/**
 * Refuses what a yuv420p conversion of `box` in a `width × height` frame cannot do: odd sizes or edges (each chroma
 * sample covers 2×2 pixels) and a box outside the frame.
 * @throws RangeError naming which.
 */
export function checkYuv420Box(width: number, height: number, box: Box): void {
  const { x0, y0, x1, y1 } = box;
  if ((width | height | x0 | y0 | x1 | y1) & 1) throw new RangeError('yuv420p needs even sizes and an even-aligned box');
  if (x0 < 0 || y0 < 0 || x1 > width || y1 > height) throw new RangeError('box outside the frame');
}

/**
 * Converts the pixels of `box` in `words` (`width × height` RGBA words, little-endian: red in the low byte;
 * alpha ignored, as for an opaque frame) into `out`, a yuv420p frame of the same size; the rest of `out` is
 * left as it is. `width`, `height` and the box's edges must be even (each chroma sample covers 2×2 pixels).
 * With `previous`, the pixels `out` holds the conversion of (same size as `words`): 2×2 blocks that equal
 * it are skipped, the others converted and copied into it. From one frame of a talking head to the next,
 * most blocks of even the changed rectangle are the same (flat colours, parts that did not move), and
 * comparing costs a fraction of converting.
 */
export function rgbaToYuv420(words: Uint32Array, width: number, height: number, out: Uint8Array, box: Box, previous?: Uint32Array): void {
  const { x0, y0, x1, y1 } = box;
  checkYuv420Box(width, height, box);
  if (words.length !== width * height || out.length !== yuv420Bytes(width, height)) throw new RangeError('buffer sizes do not match the frame');
  if (previous && previous.length !== words.length) throw new RangeError('previous pixels do not match the frame');
  const chromaWidth = width >> 1;
  const uPlane = width * height;
  const vPlane = uPlane + chromaWidth * (height >> 1);
  for (let y = y0; y < y1; y += 2) {
    let top = y * width + x0;
    let bottom = top + width;
    let u = uPlane + (y >> 1) * chromaWidth + (x0 >> 1);
    let v = u - uPlane + vPlane;
    for (let x = x0; x < x1; x += 2) {
      const p0 = words[top]!;
      const p1 = words[top + 1]!;
      const p2 = words[bottom]!;
      const p3 = words[bottom + 1]!;
      if (previous) {
        if (p0 === previous[top] && p1 === previous[top + 1] && p2 === previous[bottom] && p3 === previous[bottom + 1]) {
          top += 2;
          bottom += 2;
          u++;
          v++;
          continue;
        }
        previous[top] = p0;
        previous[top + 1] = p1;
        previous[bottom] = p2;
        previous[bottom + 1] = p3;
      }
      const r0 = p0 & 255, g0 = (p0 >>> 8) & 255, b0 = (p0 >>> 16) & 255;
      const r1 = p1 & 255, g1 = (p1 >>> 8) & 255, b1 = (p1 >>> 16) & 255;
      const r2 = p2 & 255, g2 = (p2 >>> 8) & 255, b2 = (p2 >>> 16) & 255;
      const r3 = p3 & 255, g3 = (p3 >>> 8) & 255, b3 = (p3 >>> 16) & 255;
      out[top] = ((66 * r0 + 129 * g0 + 25 * b0 + 128) >> 8) + 16;
      out[top + 1] = ((66 * r1 + 129 * g1 + 25 * b1 + 128) >> 8) + 16;
      out[bottom] = ((66 * r2 + 129 * g2 + 25 * b2 + 128) >> 8) + 16;
      out[bottom + 1] = ((66 * r3 + 129 * g3 + 25 * b3 + 128) >> 8) + 16;
      // Sums of four: the same formulas scaled by 4, rounded once.
      const r = r0 + r1 + r2 + r3;
      const g = g0 + g1 + g2 + g3;
      const b = b0 + b1 + b2 + b3;
      out[u++] = ((-38 * r - 74 * g + 112 * b + 512) >> 10) + 128;
      out[v++] = ((112 * r - 94 * g - 18 * b + 512) >> 10) + 128;
      top += 2;
      bottom += 2;
    }
  }
}
