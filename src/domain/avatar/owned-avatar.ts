import type { PhotoAvatar } from './photo-avatar.js';
import type { VideoAvatar } from './video-avatar.js';

/** What every avatar a key made has, whatever it is made from. */
export interface OwnedAvatarFields {
  uid: string;
  /** Owner: a hash of the API key that created it; no other key sees it. */
  owner: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  /** Which asset kind makes its assets from the rest of the record (absent: `photo`). */
  asset?: string;
}

/**
 * An avatar a key made, as an `AvatarStore` keeps it: one record type per asset kind that keys can create (a photo
 * avatar, a video avatar; a new kind adds its record here). Its state is its `avatarPrepare` job's.
 */
export type OwnedAvatar = PhotoAvatar | VideoAvatar;
