/**
 * Every image the service decodes goes through {@link loadCheckedImage}: photos (face detection, the photo
 * renderer) and background images. See image-header.ts for why the size is read by a header walk of our own.
 */
import { loadImage, type Image } from '@napi-rs/canvas';
import { bytesSource, checkImageHeader, ImageCheckError, MAX_IMAGE_PIXELS } from './image-header.js';

/**
 * Decodes a JPEG, PNG or WebP with the canvas (Skia) once its header shows at most `maxPixels` pixels; EXIF
 * orientation is applied by the decoder. The size Skia decoded is then compared with the header's (either way
 * round, for the orientation): should they ever disagree, the image is refused all the same.
 * @throws ImageCheckError when the header is refused, the decode fails, or the decoder's size differs.
 */
export async function loadCheckedImage(bytes: Uint8Array, maxPixels = MAX_IMAGE_PIXELS): Promise<Image> {
  const header = await checkImageHeader(bytesSource(bytes), maxPixels);
  let image: Image;
  try {
    // Bytes, never a path: loadImage would treat a string that looks like a URL as one to fetch.
    image = await loadImage(bytes);
  } catch (error) {
    throw new ImageCheckError(`the ${header.format.toUpperCase()} image could not be decoded (${error instanceof Error ? error.message : String(error)})`);
  }
  const { width, height } = image;
  const asRead = width === header.width && height === header.height;
  const turned = width === header.height && height === header.width;
  if (!asRead && !turned) {
    throw new ImageCheckError(`the image decoded to ${width}×${height} pixels where its header says ${header.width}×${header.height}`);
  }
  return image;
}
