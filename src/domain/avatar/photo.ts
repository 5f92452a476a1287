import { createHash } from 'node:crypto';
import type { FaceLandmarks } from './face-landmarks.js';
import type { AvatarDefinition } from './definition.js';

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

/** The frame size of a photo avatar's idle clip and preview, and of its videos unless a job asks for another. */
export const PHOTO_FRAME_SIZE = { width: 512, height: 512 } as const;

/**
 * A photo avatar's definition for drawing, the same for its assets and its videos: its id (which seeds the blinks
 * and head motion) is derived from the face, so the same photo always moves the same way.
 */
export function photoDefinition(face: Pick<PhotoFace, 'landmarks'>, fps: number, size: { width: number; height: number } = PHOTO_FRAME_SIZE): AvatarDefinition {
  const digest = createHash('sha256').update(JSON.stringify(face.landmarks.points)).digest('hex').slice(0, 16);
  return { id: `photo-${digest}`, name: 'photo', width: size.width, height: size.height, fps };
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
 * A face whose box (brows to chin) is at least this high, in pixels of the uploaded image, is animated as found.
 * A smaller one is animated when its landmarks are sure enough ({@link FaceLandmarks.landmarkSpread} at most
 * {@link MAX_LANDMARK_SPREAD}; the built-in detector measures it for such faces), else refused with `face_too_small`,
 * which asks for a face this high; a detector that reports no spread has its smaller faces refused.
 */
export const MIN_FACE_HEIGHT_PX = 96;

/**
 * The most {@link FaceLandmarks.landmarkSpread} a face under {@link MIN_FACE_HEIGHT_PX} may have to be animated.
 * Measured with the built-in detector (docs/photo-face-detection.md): 28 faces of six real photos scaled down to
 * 40–96 px high (JPEG, quality 80) spread 0.058 at most; at 32 px up to 0.089 and at 24 px half of them over 0.057;
 * on the small faces of crowd photos, every one whose upscaled look's points were off by more than 0.11 spread more than this.
 */
export const MAX_LANDMARK_SPREAD = 0.06;

/** Thrown by a {@link FaceDetector} when the file is not a JPEG, PNG or WebP image it can decode. */
export class NotAnImageError extends Error {
  constructor(message = 'the file is not a JPEG, PNG or WebP image') {
    super(message);
    this.name = 'NotAnImageError';
  }
}
