import type { AvatarAssetRenderer } from '../../../domain/engines.js';
import type { AvatarDefinition } from '../../../domain/avatar/definition.js';
import { TOKENS } from '../../tokens.js';
import { renderAssets, type AvatarAssetKind } from './asset-kind.js';

/** What a catalogue avatar is made from: its drawn definition (avatars/README.md). */
export interface CatalogueSource {
  asset: 'catalogue';
  definition: AvatarDefinition;
}

/** Catalogue avatars: drawn by the avatar renderer (`TOKENS.AvatarRenderer`) from their definition. */
export const catalogueAssets: AvatarAssetKind<CatalogueSource> = {
  asset: 'catalogue',
  render(source, context) {
    const renderer = context.engine<AvatarAssetRenderer>(TOKENS.AvatarRenderer, 'avatar renderer');
    const { definition } = source;
    return renderAssets(context, {
      thumbnail: (path) => renderer.renderThumbnail(definition, path),
      preview: (path) => renderer.renderPreview(definition, path),
      idle: (path, signal) => renderer.renderIdleVideo(definition, path, signal),
    });
  },
  async lipSync(source) {
    return { avatar: source.definition };
  },
  ownedBlobs: () => [],
};
