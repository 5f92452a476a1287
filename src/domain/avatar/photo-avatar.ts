import type { BlobRef } from '../job.js';
import type { FaceLandmarks } from './face-landmarks.js';
import type { OwnedAvatarFields } from './owned-avatar.js';

/** Values of an avatar's `thumbnailGenerationStatus`: its assets are being made, exist, or could not be made. */
export const PHOTO_AVATAR_STATUSES = ['pending', 'completed', 'error'] as const;
export type PhotoAvatarStatus = (typeof PHOTO_AVATAR_STATUSES)[number];

/** Frame rate of a photo avatar's idle clip and of the videos made with it. */
export const PHOTO_AVATAR_FPS = 25;

/** An avatar's assets, made in the background by its `avatarPrepare` job. */
export type PhotoAvatarAssets = {
  /** The idle clip (mp4); a video avatar's prepared clip. */
  video: BlobRef;
  /** PNG preview. */
  preview: BlobRef;
  /** Small PNG thumbnail. */
  thumbnail: BlobRef;
  /** A video avatar's face data (JSON, `videoFaceSchema`); other avatars have none. */
  face?: BlobRef;
  /** A video avatar's mouth atlas (PNG); other avatars have none. */
  atlas?: BlobRef;
};

/** What a photo avatar is made from: a portrait and the face found in it once, at creation. */
export interface PhotoSource {
  asset: 'photo';
  /** The portrait as uploaded (JPEG, PNG or WebP); the avatar owns it. */
  photo: BlobRef;
  /** The face to animate (the largest found). */
  landmarks: FaceLandmarks;
  fps: number;
}

/**
 * An avatar made from a portrait (POST /v2/avatar), kept by an `AvatarStore` until its owner deletes it. Its
 * assets are made by the `avatarPrepare` job with its uid, whose state is the avatar's (`thumbnailGenerationStatus`).
 * `asset` is absent in records written before asset kinds existed (they are photo avatars).
 */
export interface PhotoAvatar extends OwnedAvatarFields, Omit<PhotoSource, 'asset'> {
  asset?: 'photo';
}
