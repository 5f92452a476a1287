import { photoDefinition, type PhotoFace } from '../../domain/avatar/photo.js';
import type { PhotoAvatarAssetRenderer } from '../../domain/engines.js';
import type { MediaBinaries } from '../media/binaries.js';
import { resolveEncoderBinaries, type EncoderBinaries, type VideoEncoderSettings } from '../media/encode-video.js';
import { FrameSource } from '../render/frame-source.js';
import { renderInChild, type AssetThread } from '../avatar/asset-pool.js';
import type { AssetMethod } from '../avatar/asset-task.js';

/** Options of {@link CanvasPhotoAvatarAssetRenderer}. */
export interface PhotoAvatarAssetRendererOptions {
  /** Length of the idle clip in seconds (default 4). */
  idleSeconds?: number;
  /** Frame size of the idle clip and the preview (default 512×512). */
  size?: { width: number; height: number };
  /** Thumbnail edge in pixels (default 128): the face, cut from the photo with a margin (the preview is the whole frame). */
  thumbnailSize?: number;
  /** H.264 settings of the idle clip. */
  encoder?: VideoEncoderSettings;
  /** ffmpeg location: resolved binaries, or options for `resolveMediaBinaries` (default: found automatically). */
  binaries?: EncoderBinaries;
  /**
   * `'worker'` (default): each asset is drawn (the photo decoded) and encoded in a pooled child process, so canvas
   * code (native) never runs in the host's process; `'main'`: on the calling thread.
   */
  thread?: AssetThread;
}

export { photoDefinition } from '../../domain/avatar/photo.js';

/**
 * Renders a photo avatar's catalogue assets with {@link PhotoFrameRenderer}: a seamless idle clip (blinks,
 * small head motion, the photo's own mouth), a PNG preview (its first frame) and a PNG thumbnail of the face.
 * Each asset is drawn (the photo decoded too) and encoded in an asset child process by default (see
 * {@link PhotoAvatarAssetRendererOptions.thread}), so the caller's event loop only waits.
 */
export class CanvasPhotoAvatarAssetRenderer implements PhotoAvatarAssetRenderer {
  private binaries?: Promise<MediaBinaries>;

  constructor(private readonly options: PhotoAvatarAssetRendererOptions = {}) {}

  async renderIdleVideo(face: PhotoFace, fps: number, outputPath: string, signal?: AbortSignal): Promise<void> {
    if (await this.inChild('renderIdleVideo', face, fps, outputPath, signal)) return;
    const count = Math.max(1, Math.round((this.options.idleSeconds ?? 4) * fps));
    const definition = photoDefinition(face, fps, this.size);
    const binaries = await (this.binaries ??= resolveEncoderBinaries(this.options.binaries));
    const source = FrameSource.open({
      definition,
      photo: face,
      loopFrames: count,
      thread: 'main',
      encoder: { options: { ...this.options.encoder, width: definition.width, height: definition.height, fps, outputPath }, binaries },
    });
    try {
      await source.ready();
      await source.encode([], count, signal);
    } finally {
      await source.close();
    }
  }

  async renderPreview(face: PhotoFace, outputPath: string): Promise<void> {
    if (await this.inChild('renderPreview', face, 25, outputPath)) return;
    const { drawPhotoStill } = await import('./photo-still.js');
    await drawPhotoStill(face, this.size, outputPath);
  }

  async renderThumbnail(face: PhotoFace, outputPath: string): Promise<void> {
    if (await this.inChild('renderThumbnail', face, 25, outputPath)) return;
    const { drawPhotoThumbnail } = await import('./photo-still.js');
    await drawPhotoThumbnail(face, this.size, outputPath, this.options.thumbnailSize ?? 128);
  }

  /** Renders the asset in a child process; false where it is to be rendered here. */
  private async inChild(method: AssetMethod, face: PhotoFace, fps: number, outputPath: string, signal?: AbortSignal): Promise<boolean> {
    const { thread, ...options } = this.options;
    return renderInChild({ renderer: 'photo', options, method, face, fps, outputPath }, thread, signal);
  }

  private get size(): { width: number; height: number } {
    return this.options.size ?? { width: 512, height: 512 };
  }
}

/** The built-in {@link PhotoAvatarAssetRenderer}: idle clip, preview and thumbnail of a photo avatar. */
export function createPhotoAvatarAssetRenderer(options: PhotoAvatarAssetRendererOptions = {}): PhotoAvatarAssetRenderer {
  return new CanvasPhotoAvatarAssetRenderer(options);
}
