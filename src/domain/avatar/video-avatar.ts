import type { BlobRef } from '../job.js';
import type { OwnedAvatarFields } from './owned-avatar.js';

/** What a video avatar is made from: a person's clip as uploaded (MP4, MOV, WebM or MKV). */
export interface VideoSource {
  asset: 'video';
  /** The clip as uploaded; the avatar owns it. */
  clip: BlobRef;
  /** The prepared clip's size (the upload's, upright, at most 1920×1080) and constant frame rate, known at creation. */
  width: number;
  height: number;
  fps: number;
}

/**
 * An avatar made from a person's clip (POST /v2/avatar with a video), kept by an `AvatarStore` until its owner deletes
 * it. Its `avatarPrepare` job prepares the clip (docs/video-avatars.md): the prepared clip is its idle video, and the
 * face data and mouth atlas it keeps with its assets are what jobs animate it with.
 */
export interface VideoAvatar extends OwnedAvatarFields, Omit<VideoSource, 'asset'> {
  asset: 'video';
}
