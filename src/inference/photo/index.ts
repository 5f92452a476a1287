/**
 * Photo avatars' renderer: a portrait with 68 face landmarks becomes lip-synced frames (see
 * {@link PhotoFrameRenderer}) and catalogue assets (see {@link CanvasPhotoAvatarAssetRenderer}).
 */
export { PhotoFrameRenderer, type PhotoFrameRendererOptions } from './photo-frame-renderer.js';
export {
  CanvasPhotoAvatarAssetRenderer,
  createPhotoAvatarAssetRenderer,
  photoDefinition,
  type PhotoAvatarAssetRendererOptions,
} from './photo-asset-renderer.js';
