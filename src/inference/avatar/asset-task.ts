import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { CanvasAvatarAssetRendererOptions } from './asset-renderer.js';
import type { PhotoAvatarAssetRendererOptions } from '../photo/photo-asset-renderer.js';

/** Which asset of an avatar a task renders. */
export type AssetMethod = 'renderIdleVideo' | 'renderPreview' | 'renderThumbnail';

/** One catalogue asset, as sent to the asset child (plain data: it crosses the process boundary). */
export type AssetTask =
  | { renderer: 'drawn'; options: CanvasAvatarAssetRendererOptions; method: AssetMethod; avatar: AvatarDefinition; outputPath: string }
  | { renderer: 'photo'; options: PhotoAvatarAssetRendererOptions; method: AssetMethod; face: PhotoFace; fps: number; outputPath: string };
