/**
 * Photo avatars' renderer: a portrait with 68 face landmarks becomes lip-synced frames (see
 * {@link PhotoFrameRenderer}) and catalogue assets (see {@link CanvasPhotoAvatarAssetRenderer}).
 */
import type { PhotoAvatarAssetRenderer } from '../../domain/engines.js';
import { CanvasPhotoAvatarAssetRenderer, type PhotoAvatarAssetRendererOptions } from './photo-asset-renderer.js';

export { PhotoFrameRenderer, type PhotoFrameRendererOptions } from './photo-frame-renderer.js';
export { CanvasPhotoAvatarAssetRenderer, photoDefinition, type PhotoAvatarAssetRendererOptions } from './photo-asset-renderer.js';

/** The built-in {@link PhotoAvatarAssetRenderer}: idle clip, preview and thumbnail of a photo avatar. */
export function createPhotoAvatarAssetRenderer(options: PhotoAvatarAssetRendererOptions = {}): PhotoAvatarAssetRenderer {
  return new CanvasPhotoAvatarAssetRenderer(options);
}
