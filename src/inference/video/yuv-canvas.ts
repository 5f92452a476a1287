/** A yuv420p frame on a canvas (previews, thumbnails, contact sheets). Canvas code (native): the video child only. */
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { yuvBoxToRgba } from './yuv-pixels.js';

/** A `width × height` canvas showing the yuv420p `frame`. */
export function yuvFrameCanvas(frame: Uint8Array, width: number, height: number): Canvas {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(width, height);
  image.data.set(yuvBoxToRgba(frame, width, height, { x0: 0, y0: 0, x1: width, y1: height }));
  ctx.putImageData(image, 0, 0);
  return canvas;
}
