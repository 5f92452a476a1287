import type { PhotoAvatarAssetRenderer } from '../../../domain/engines.js';
import { photoDefinition, type PhotoFace } from '../../../domain/avatar/photo.js';
import type { PhotoSource } from '../../../domain/avatar/photo-avatar.js';
import { TOKENS } from '../../tokens.js';
import { renderAssets, type AvatarAssetKind } from './asset-kind.js';

/**
 * Photo avatars: a portrait whose face is animated. Their assets are drawn by the photo renderer
 * (`TOKENS.PhotoAvatarRenderer`); their videos use the same drawing definition as their idle clip.
 */
export const photoAssets: AvatarAssetKind<PhotoSource> = {
  asset: 'photo',
  async render(source, context) {
    const renderer = context.engine<PhotoAvatarAssetRenderer>(TOKENS.PhotoAvatarRenderer, 'photo avatar renderer');
    // The avatar keeps its portrait: its creation clears the upload's expiry, and this covers a creation whose write of it failed.
    await context.services.blobs.setExpiry(source.photo.id, undefined);
    const face: PhotoFace = { imagePath: await context.localFile(source.photo, 'photo'), landmarks: source.landmarks };
    return renderAssets(context, {
      thumbnail: (path) => renderer.renderThumbnail(face, path),
      preview: (path) => renderer.renderPreview(face, path),
      idle: (path, signal) => renderer.renderIdleVideo(face, source.fps, path, signal),
    });
  },
  async lipSync(source, localFile) {
    const face: PhotoFace = { imagePath: await localFile(source.photo, 'photo'), landmarks: source.landmarks };
    return { avatar: photoDefinition(face, source.fps), photo: face };
  },
  ownedBlobs: (source) => [source.photo],
};
