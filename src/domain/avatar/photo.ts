import type { FaceLandmarks } from './face-landmarks.js';

/**
 * A photo avatar's source: the uploaded portrait and the face found in it. The renderer shows the
 * photo scaled to cover the frame and animates only the face.
 */
export interface PhotoFace {
  /** Local path of the uploaded image (JPEG, PNG or WebP), as uploaded. */
  imagePath: string;
  /** The face to animate (the largest one found), in the image's pixels. */
  landmarks: FaceLandmarks;
}

/** What {@link FaceDetector.detect} found in one image. */
export interface FaceDetection {
  /** The decoded image's size in pixels (after EXIF orientation). */
  imageWidth: number;
  imageHeight: number;
  /** Every face found, largest first; empty when there is none. */
  faces: FaceLandmarks[];
}

/**
 * The smallest face a photo avatar can animate: the height of the face's box (brows to chin), in
 * pixels of the uploaded image. Smaller faces are refused with `face_too_small`.
 */
export const MIN_FACE_HEIGHT_PX = 96;

/** Thrown by a {@link FaceDetector} when the file is not a JPEG, PNG or WebP image it can decode. */
export class NotAnImageError extends Error {
  constructor(message = 'the file is not a JPEG, PNG or WebP image') {
    super(message);
    this.name = 'NotAnImageError';
  }
}
