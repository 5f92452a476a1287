/**
 * A photo avatar's stills for {@link CanvasPhotoAvatarAssetRenderer}: the preview (the idle clip's first frame) and
 * the thumbnail (the face, cut from the photo). Canvas code (native), loaded only where assets are drawn (the asset
 * child, or the caller's thread with `thread: 'main'`).
 */
import { createCanvas } from '@napi-rs/canvas';
import type { FaceLandmarks } from '../../domain/avatar/face-landmarks.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import { coverCrop } from '../render/background.js';
import { FrameSource } from '../render/frame-source.js';
import { writePng } from '../render/write-png.js';
import { photoDefinition } from './photo-asset-renderer.js';
import { loadAvatarPhoto } from './photo-frame-renderer.js';

/** The thumbnail's square is this many times the larger side of the landmarks' bounding box (brows to chin). */
export const THUMBNAIL_FACE_MARGIN = 1.6;

/**
 * How far the thumbnail's square is moved up from the landmarks' centre, in box heights: the box ends at the brows,
 * so a square centred on it would show more neck than forehead.
 */
const THUMBNAIL_LIFT = 0.1;

/** Writes the idle clip's first frame (eyes open, the photo's own mouth) at `size` as a PNG. Drawn on this thread. */
export async function drawPhotoStill(face: PhotoFace, size: { width: number; height: number }, outputPath: string): Promise<void> {
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
    await writePng(canvas, outputPath);
  } finally {
    await source.close();
  }
}

/**
 * The square of the photo (its own pixels) that the thumbnail shows: {@link THUMBNAIL_FACE_MARGIN} times the face's
 * landmarks' bounding box, lifted a little towards the forehead, shrunk and moved to stay inside the part of the
 * photo the frame (`size`) shows, as the preview and the videos cover it.
 */
export function thumbnailSquare(landmarks: FaceLandmarks, image: { width: number; height: number }, size: { width: number; height: number }) {
  const fx = image.width / landmarks.imageWidth;
  const fy = image.height / landmarks.imageHeight;
  const xs = landmarks.points.map(([x]) => x * fx);
  const ys = landmarks.points.map(([, y]) => y * fy);
  const [left, right, top, bottom] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const shown = coverCrop(image, size.width, size.height);
  const side = Math.min(THUMBNAIL_FACE_MARGIN * Math.max(right - left, bottom - top), shown.sw, shown.sh);
  const clamp = (start: number, from: number, span: number) => Math.min(Math.max(start, from), from + span - side);
  const x = clamp((left + right) / 2 - side / 2, shown.sx, shown.sw);
  const y = clamp((top + bottom) / 2 - THUMBNAIL_LIFT * (bottom - top) - side / 2, shown.sy, shown.sh);
  return { x, y, side };
}

/**
 * Writes the thumbnail: the face with a margin ({@link thumbnailSquare}), cut from the photo at its full resolution
 * and scaled to `edge × edge`, so that the face fills it however small it is in the photo. Drawn on this thread.
 */
export async function drawPhotoThumbnail(face: PhotoFace, size: { width: number; height: number }, outputPath: string, edge: number): Promise<void> {
  const image = await loadAvatarPhoto(face.imagePath);
  const { x, y, side } = thumbnailSquare(face.landmarks, image, size);
  const canvas = createCanvas(edge, edge);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, x, y, side, side, 0, 0, edge, edge);
  await writePng(canvas, outputPath);
}
