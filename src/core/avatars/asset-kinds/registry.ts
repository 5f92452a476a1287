import type { AvatarAssetKind, AvatarSourceFields } from './asset-kind.js';
import { catalogueAssets } from './catalogue.js';
import { photoAssets } from './photo.js';
import { videoAssets } from './video.js';

/** A table of asset kinds keyed by their `asset`: the type checks that every key is its entry's name. */
function assetKindTable<T extends { [K in keyof T]: AvatarAssetKind & { readonly asset: K } }>(table: T): T {
  return table;
}

/** The ways avatars are made: one line each. */
export const ASSET_KINDS = assetKindTable({
  catalogue: catalogueAssets,
  photo: photoAssets,
  video: videoAssets,
});

/** What any avatar is made from: the source of one of {@link ASSET_KINDS}. */
export type AvatarSource = { [K in keyof typeof ASSET_KINDS]: (typeof ASSET_KINDS)[K] extends AvatarAssetKind<infer S> ? S : never }[keyof typeof ASSET_KINDS];

/** The asset kind of a source. @throws Error for a kind this build does not have. */
export function assetKindOf(source: AvatarSourceFields): AvatarAssetKind {
  const kind = (ASSET_KINDS as Record<string, AvatarAssetKind | undefined>)[source.asset];
  if (!kind) throw new Error(`unknown avatar asset kind ${source.asset}`);
  return kind;
}
