import type { BlobRef } from '../../domain/job.js';
import type { PhotoAvatar } from '../../domain/avatar/photo-avatar.js';
import type { LinkBuilder } from '../links.js';
import type { AvatarListItemView } from '../schemas/avatar.js';
import type { AvatarEntry } from './avatar-catalogue.js';

/** Signed links to an avatar's three assets, named after `name`. */
async function assetLinks(assets: { video?: BlobRef; preview?: BlobRef; thumbnail?: BlobRef } | undefined, name: string, links: LinkBuilder) {
  const [path, previewImagePath, thumbnailPath] = await Promise.all([
    links.link(assets?.video, `${name}.mp4`),
    links.link(assets?.preview, `${name}-preview.png`),
    links.link(assets?.thumbnail, `${name}-thumbnail.png`),
  ]);
  return { path, previewImagePath, thumbnailPath };
}

/** A catalogue avatar with `thumbnailGenerationStatus` (the list item); drop that field for the single response. */
export async function catalogueAvatarView(entry: AvatarEntry, links: LinkBuilder): Promise<AvatarListItemView> {
  return {
    uid: entry.uid,
    name: entry.name,
    ...(await assetLinks(entry.assets, entry.definition.id, links)),
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
    thumbnailGenerationStatus: entry.thumbnailGenerationStatus,
  };
}

/** A photo avatar as created, listed and fetched: links once `completed`, `errorReason` once `error`. */
export async function photoAvatarView(avatar: PhotoAvatar, links: LinkBuilder): Promise<AvatarListItemView> {
  return {
    uid: avatar.uid,
    name: avatar.name,
    ...(await assetLinks(avatar.status === 'completed' ? avatar.assets : undefined, avatar.uid, links)),
    createdAt: avatar.createdAt,
    updatedAt: avatar.updatedAt,
    thumbnailGenerationStatus: avatar.status,
    ...(avatar.status === 'error' && avatar.failure ? { errorReason: { ...avatar.failure } } : {}),
  };
}
