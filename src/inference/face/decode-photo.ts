/**
 * Decodes an uploaded portrait (JPEG, PNG or WebP) for face detection. The decoder (Skia, in @napi-rs/canvas)
 * applies a JPEG's EXIF orientation itself, so the pixels are the photo as it is meant to be seen; a large photo
 * is scaled down so that its longer side is at most `maxSide` (the landmark model looks at a 192-pixel crop of
 * the face, so detail past that is unused).
 */
import { readFile } from 'node:fs/promises';
import { createCanvas, type Image } from '@napi-rs/canvas';
import { NotAnImageError } from '../../domain/avatar/photo.js';
import { ImageCheckError, MAX_IMAGE_PIXELS } from '../image/image-header.js';
import { loadCheckedImage } from '../image/load-image.js';

/** A decoded photo, upright, possibly scaled down. */
export interface DecodedPhoto {
  /** Size of the upright photo at full resolution (what landmarks are given in). */
  width: number;
  height: number;
  /** `pixels` is the photo scaled by `scale` (≤ 1): `scaledWidth × scaledHeight` RGBA pixels. */
  scale: number;
  scaledWidth: number;
  scaledHeight: number;
  pixels: Uint8ClampedArray;
  /**
   * The square of side `side` whose top-left corner is (`x`, `y`), in the full-size photo's pixels, drawn at
   * `size × size` RGBA pixels from the full-size photo (scaled up or down; outside the photo: transparent black).
   */
  square(x: number, y: number, side: number, size: number): Uint8ClampedArray;
}

/**
 * The most pixels a photo may have (50 megapixels, e.g. 8660 × 5773): it is decoded whole before it is scaled
 * down, four bytes a pixel, so a small file that declares a huge image (a "decompression bomb") is refused from
 * its header, read by the decoder's own rules (see image-header.ts), before any decoding.
 */
export const MAX_PHOTO_PIXELS = MAX_IMAGE_PIXELS;

/**
 * The photo at `path`, upright and scaled to at most `maxSide` pixels on its longer side.
 * @throws NotAnImageError when it is not a JPEG, PNG or WebP image that decodes.
 */
export async function decodePhoto(path: string, maxSide: number): Promise<DecodedPhoto> {
  const bytes = await readFile(path);
  // loadCheckedImage refuses anything but a JPEG, PNG or WebP first, from its header (the same message as before).
  let image: Image;
  try {
    image = await loadCheckedImage(bytes, MAX_PHOTO_PIXELS);
  } catch (error) {
    throw error instanceof ImageCheckError ? new NotAnImageError(error.message) : error;
  }
  const { width, height } = image;
  if (!(width > 0 && height > 0)) throw new NotAnImageError('the image has no pixels');
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const scaledWidth = Math.max(1, Math.round(width * scale));
  const scaledHeight = Math.max(1, Math.round(height * scale));
  const canvas = createCanvas(scaledWidth, scaledHeight);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, width, height, 0, 0, width * scale, height * scale);
  const { data } = context.getImageData(0, 0, scaledWidth, scaledHeight);
  const square = (x: number, y: number, side: number, size: number) => {
    const target = createCanvas(size, size).getContext('2d');
    target.imageSmoothingQuality = 'high';
    target.drawImage(image, x, y, side, side, 0, 0, size, size);
    return target.getImageData(0, 0, size, size).data;
  };
  return { width, height, scale, scaledWidth, scaledHeight, pixels: data, square };
}
