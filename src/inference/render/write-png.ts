import { writeFile } from 'node:fs/promises';
import { createCanvas, type Canvas } from '@napi-rs/canvas';

/**
 * Writes `canvas` as a PNG, optionally scaled to `size × size` (aspect kept, centred, transparent
 * padding) for thumbnails. Large reductions go in halving steps so the result stays smooth.
 */
export async function writePng(canvas: Canvas, outputPath: string, size?: number): Promise<void> {
  let source = canvas;
  if (size && (size !== canvas.width || size !== canvas.height)) {
    while (Math.max(source.width, source.height) >= size * 4) {
      const half = createCanvas(Math.ceil(source.width / 2), Math.ceil(source.height / 2));
      const hctx = half.getContext('2d');
      hctx.imageSmoothingQuality = 'high';
      hctx.drawImage(source, 0, 0, half.width, half.height);
      source = half;
    }
    const target = createCanvas(size, size);
    const ctx = target.getContext('2d');
    ctx.imageSmoothingQuality = 'high';
    const scale = size / Math.max(source.width, source.height);
    const w = source.width * scale;
    const h = source.height * scale;
    ctx.drawImage(source, (size - w) / 2, (size - h) / 2, w, h);
    source = target;
  }
  await writeFile(outputPath, await source.encode('png'));
}
