import type { BlobRef, JobFailure } from '../job.js';
import type { FaceLandmarks } from './face-landmarks.js';

/** Values of a photo avatar's `thumbnailGenerationStatus`: its assets are being made, exist, or failed. */
export const PHOTO_AVATAR_STATUSES = ['pending', 'completed', 'error'] as const;
export type PhotoAvatarStatus = (typeof PHOTO_AVATAR_STATUSES)[number];

/** Frame rate of a photo avatar's idle clip and of the videos made with it. */
export const PHOTO_AVATAR_FPS = 25;

/** The catalogue assets of a photo avatar, made in the background after its creation. */
export type PhotoAvatarAssets = {
  /** The idle clip (mp4). */
  video: BlobRef;
  /** PNG preview. */
  preview: BlobRef;
  /** Small PNG thumbnail. */
  thumbnail: BlobRef;
};

/**
 * An avatar made from a portrait (POST /v2/avatar), kept by an `AvatarStore` until its owner deletes it.
 * Its uid is also the uid of the `avatarPrepare` job that makes its assets.
 */
export interface PhotoAvatar {
  uid: string;
  /** Owner: a hash of the API key that created it; no other key sees it. */
  owner: string;
  name: string;
  /** `pending` until the assets exist, then `completed`; `error` (with `failure`) when they could not be made. */
  status: PhotoAvatarStatus;
  /** The portrait as uploaded (JPEG, PNG or WebP). */
  photo: BlobRef;
  /** The face to animate (the largest found), found once at creation. */
  landmarks: FaceLandmarks;
  fps: number;
  /** Set once `completed`. */
  assets?: PhotoAvatarAssets;
  /** Set once `error`. */
  failure?: JobFailure;
  createdAt: string;
  updatedAt: string;
}
