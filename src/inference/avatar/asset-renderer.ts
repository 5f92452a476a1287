import type { AvatarAssetRenderer } from '../../domain/engines.js';
import type { MediaBinaries } from '../media/binaries.js';
import { resolveEncoderBinaries, type EncoderBinaries, type VideoEncoderSettings } from '../media/encode-video.js';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { renderInChild, type AssetThread } from './asset-pool.js';
import type { AssetMethod } from './asset-task.js';

/** Options of {@link CanvasAvatarAssetRenderer}. */
export interface CanvasAvatarAssetRendererOptions {
  /** Length of the idle-loop video in seconds (default 4). */
  idleSeconds?: number;
  /** Thumbnail edge in pixels (default 128). */
  thumbnailSize?: number;
  /** Frame index drawn for the preview and thumbnail (default 0: eyes open, at rest). */
  stillFrame?: number;
  /** H.264 settings of the idle video. */
  encoder?: VideoEncoderSettings;
  /** ffmpeg location: resolved binaries, or options for `resolveMediaBinaries` (default: found automatically). */
  binaries?: EncoderBinaries;
  /**
   * `'worker'` (default): each asset is drawn and encoded in a pooled child process, so canvas code (native) never
   * runs in the host's process; `'main'`: on the calling thread.
   */
  thread?: AssetThread;
}

/**
 * Renders an avatar's catalogue assets with the canvas renderer: a seamless idle-loop mp4 (blinks,
 * breath, head motion, closed mouth, opaque backdrop) and transparent PNG preview (full size) and thumbnail,
 * in a child process by default (see {@link CanvasAvatarAssetRendererOptions.thread}).
 */
export class CanvasAvatarAssetRenderer implements AvatarAssetRenderer {
  private binaries?: Promise<MediaBinaries>;

  constructor(private readonly options: CanvasAvatarAssetRendererOptions = {}) {}

  async renderIdleVideo(avatar: AvatarDefinition, outputPath: string, signal?: AbortSignal): Promise<void> {
    if (await this.inChild('renderIdleVideo', avatar, outputPath, signal)) return;
    const binaries = await (this.binaries ??= resolveEncoderBinaries(this.options.binaries));
    const { drawIdleVideo } = await import('./drawn-assets.js');
    await drawIdleVideo(avatar, outputPath, this.options, binaries, signal);
  }

  async renderPreview(avatar: AvatarDefinition, outputPath: string): Promise<void> {
    if (await this.inChild('renderPreview', avatar, outputPath)) return;
    const { drawStill } = await import('./drawn-assets.js');
    await drawStill(avatar, outputPath, this.options.stillFrame);
  }

  async renderThumbnail(avatar: AvatarDefinition, outputPath: string): Promise<void> {
    if (await this.inChild('renderThumbnail', avatar, outputPath)) return;
    const { drawStill } = await import('./drawn-assets.js');
    await drawStill(avatar, outputPath, this.options.stillFrame, this.options.thumbnailSize ?? 128);
  }

  /** Renders the asset in a child process; false where it is to be rendered here. */
  private async inChild(method: AssetMethod, avatar: AvatarDefinition, outputPath: string, signal?: AbortSignal): Promise<boolean> {
    const { thread, ...options } = this.options;
    return renderInChild({ renderer: 'drawn', options, method, avatar, outputPath }, thread, signal);
  }
}
