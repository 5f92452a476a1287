/**
 * The drawing behind {@link CanvasAvatarAssetRenderer} (canvas: native code), loaded only where assets are drawn:
 * in the asset child, or on the caller's thread with `thread: 'main'`.
 */
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { MediaBinaries } from '../media/binaries.js';
import { encodeVideo } from '../media/encode-video.js';
import { RESTING_MOUTH } from '../lipsync/mouth.js';
import { FrameRenderer } from '../render/frame-renderer.js';
import { writePng } from '../render/write-png.js';
import type { CanvasAvatarAssetRendererOptions } from './asset-renderer.js';

/** The seamless idle-loop mp4 of `avatar` (see {@link CanvasAvatarAssetRenderer.renderIdleVideo}). */
export async function drawIdleVideo(
  avatar: AvatarDefinition,
  outputPath: string,
  options: CanvasAvatarAssetRendererOptions,
  binaries: MediaBinaries,
  signal?: AbortSignal,
): Promise<void> {
  const count = Math.max(1, Math.round((options.idleSeconds ?? 4) * avatar.fps));
  const renderer = new FrameRenderer(avatar, { loopFrames: count });
  function* frames(): Generator<Buffer> {
    for (let i = 0; i < count; i++) yield renderer.render(i, RESTING_MOUTH);
  }
  await encodeVideo(frames(), { ...options.encoder, width: avatar.width, height: avatar.height, fps: avatar.fps, outputPath, signal }, binaries);
}

/** Frame `stillFrame` (default 0) of `avatar` at rest on a transparent backdrop, as a PNG (scaled to `size` when given). */
export async function drawStill(avatar: AvatarDefinition, outputPath: string, stillFrame = 0, size?: number): Promise<void> {
  const renderer = new FrameRenderer(avatar, { transparent: true });
  renderer.draw(stillFrame, RESTING_MOUTH);
  await writePng(renderer.canvas, outputPath, size);
}
