import { join } from 'node:path';
import type { BlobRef } from '../../../domain/job.js';
import type { PhotoAvatarAssets } from '../../../domain/avatar/photo-avatar.js';
import type { KindRunContext, OutputFile } from '../../kinds/kind-spec.js';
import type { LipSyncSubject, LocalFile } from '../avatar-directory.js';

/** What an avatar is made from: its asset kind's name, and that kind's own fields. */
export interface AvatarSourceFields {
  asset: string;
}

/** The files of an avatar's assets: its idle clip, preview and thumbnail (and a video avatar's face data and atlas). */
export type AssetOutputs = { [N in keyof PhotoAvatarAssets]: OutputFile };

/**
 * One way of making avatars: what an avatar of this kind is made from (`S`, its source), how its assets are made
 * (the engine call of its `avatarPrepare` job), how lip-sync animates it, and which files of its source it owns.
 * Built in: `catalogue` (a drawn definition), `photo` (a portrait and its face) and `video` (a person's clip); one entry each in
 * `asset-kinds/registry.ts`.
 */
export interface AvatarAssetKind<S extends AvatarSourceFields = AvatarSourceFields> {
  readonly asset: S['asset'];
  /** Renders the idle clip, preview and thumbnail of an avatar made from `source` into the job's work folder. */
  render(source: S, context: KindRunContext): Promise<AssetOutputs>;
  /**
   * What lip-sync needs to animate an avatar made from `source` (its files made local with `localFile`), and its
   * assets once made (a video avatar animates with its prepared files).
   */
  lipSync(source: S, localFile: LocalFile, assets?: PhotoAvatarAssets): Promise<LipSyncSubject>;
  /** The files of `source` that the avatar owns: kept while it lives, deleted with it. */
  ownedBlobs(source: S): BlobRef[];
}

/** The three asset files of a render, each drawn by its own call. */
export interface AssetDrawers {
  thumbnail(path: string): Promise<void>;
  preview(path: string): Promise<void>;
  idle(path: string, signal: AbortSignal): Promise<void>;
}

/** Draws the thumbnail, the preview and the idle clip in that order, reporting progress after each; names the files. */
export async function renderAssets(context: KindRunContext, draw: AssetDrawers): Promise<AssetOutputs> {
  const file = (name: string) => join(context.workDir, name);
  const outputs = {
    thumbnail: { path: file('thumbnail.png'), what: 'thumbnail', expected: 'png', contentType: 'image/png' },
    preview: { path: file('preview.png'), what: 'preview', expected: 'png', contentType: 'image/png' },
    video: { path: file('idle.mp4'), what: 'idle clip', expected: 'mp4-picture', contentType: 'video/mp4' },
  } satisfies AssetOutputs;
  const total = 3;
  context.onProgress({ done: 0, total, unit: 'assets' });
  await draw.thumbnail(outputs.thumbnail.path);
  context.onProgress({ done: 1, total, unit: 'assets' });
  context.signal.throwIfAborted();
  await draw.preview(outputs.preview.path);
  context.onProgress({ done: 2, total, unit: 'assets' });
  await draw.idle(outputs.video.path, context.signal);
  context.onProgress({ done: 3, total, unit: 'assets' });
  return outputs;
}
