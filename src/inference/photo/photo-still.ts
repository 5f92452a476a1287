/**
 * A photo avatar's still (preview, thumbnail) for {@link CanvasPhotoAvatarAssetRenderer}: canvas code (native),
 * loaded only where assets are drawn (the asset child, or the caller's thread with `thread: 'main'`).
 */
import { createCanvas } from '@napi-rs/canvas';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import { FrameSource } from '../render/frame-source.js';
import { writePng } from '../render/write-png.js';
import { photoDefinition } from './photo-asset-renderer.js';

/**
 * Writes the idle clip's first frame (eyes open, the photo's own mouth) at `size` as a PNG, scaled to a `thumbnail`
 * edge when given. Drawn on this thread.
 */
export async function drawPhotoStill(face: PhotoFace, size: { width: number; height: number }, outputPath: string, thumbnail?: number): Promise<void> {
  const definition = photoDefinition(face, 25, size);
  const source = FrameSource.open({ definition, photo: face, thread: 'main' });
  try {
    await source.ready();
    const canvas = createCanvas(definition.width, definition.height);
    for await (const frame of source.frames([], 1)) {
      const image = canvas.getContext('2d').createImageData(definition.width, definition.height);
      image.data.set(frame.pixels);
      canvas.getContext('2d').putImageData(image, 0, 0);
      frame.release();
    }
    await writePng(canvas, outputPath, thumbnail);
  } finally {
    await source.close();
  }
}
