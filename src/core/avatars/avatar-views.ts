import type { BlobRef } from '../../domain/job.js';
import type { LinkBuilder } from '../links.js';
import type { AvatarListItemView } from '../schemas/avatar.js';
import type { AvatarEntry, CatalogueState } from './avatar-catalogue.js';
import type { OwnedAvatarView } from './owned-avatars.js';

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
export async function catalogueAvatarView(entry: AvatarEntry, state: CatalogueState, links: LinkBuilder): Promise<AvatarListItemView> {
  return {
    uid: entry.uid,
    name: entry.name,
    ...(await assetLinks(state.assets, entry.definition.id, links)),
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    thumbnailGenerationStatus: state.status,
  };
}

/** An avatar a key made, as created, listed and fetched: links once `completed`, `errorReason` once `error`. */
export async function ownedAvatarView({ avatar, state }: OwnedAvatarView, links: LinkBuilder): Promise<AvatarListItemView> {
  return {
    uid: avatar.uid,
    name: avatar.name,
    ...(await assetLinks(state.status === 'completed' ? state.assets : undefined, avatar.uid, links)),
    createdAt: avatar.createdAt,
    updatedAt: state.updatedAt,
    thumbnailGenerationStatus: state.status,
    ...(state.status === 'error' && state.failure ? { errorReason: { ...state.failure } } : {}),
  };
}
