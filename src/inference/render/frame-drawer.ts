import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { MouthShape } from '../lipsync/mouth.js';
import { PhotoFrameRenderer } from '../photo/photo-frame-renderer.js';
import { FrameRenderer } from './frame-renderer.js';
import type { RawVideoFormat } from '../media/raw-video.js';

/** What draws a video's frames, one after another, into the caller's buffers. */
export interface FrameDrawer {
  readonly width: number;
  readonly height: number;
  /** Draws frame `frameIndex` with `mouth` into `target` (`width × height × 4` RGBA bytes). */
  renderInto(frameIndex: number, mouth: MouthShape, target: Uint8Array): void;
  /**
   * Draws frame `frameIndex` with `mouth` in `format` into memory of the drawer's own and returns it, valid and
   * unchanged until it draws again or is closed; none when it has no such memory for this frame (see
   * `FrameRenderer.drawFormat`).
   */
  drawFormat?(format: RawVideoFormat, frameIndex: number, mouth: MouthShape): Uint8Array | undefined;
  /** Frees what it keeps between frames for the next drawer on this thread (see `FrameRenderer.close`). */
  close?(): void;
}

/** What a video is drawn from: a drawn avatar (over a background image or its backdrop), or a photo. */
export interface FrameDrawerSource {
  definition: AvatarDefinition;
  /** An image drawn to cover the frame behind a drawn avatar (a photo avatar's photo covers it itself). */
  backgroundPath?: string;
  /** A photo avatar's portrait: its frames are the photo with the face animated. */
  photo?: PhotoFace;
  /** Make the idle motion a seamless loop of this many frames (idle clips). */
  loopFrames?: number;
}

/** The drawer of `source`'s frames at its definition's frame size, set up (images decoded, layers cached). */
export async function createFrameDrawer(source: FrameDrawerSource): Promise<FrameDrawer> {
  if (source.photo) return PhotoFrameRenderer.create(source.definition, source.photo, { loopFrames: source.loopFrames });
  return FrameRenderer.create(source.definition, { backgroundPath: source.backgroundPath });
}

/**
 * Draws frame `frameIndex` of `drawer` into `target` in `format`: drawn avatars draw RGBA or
 * yuv420p; photo avatars draw RGBA only (their engine asks for RGBA frames).
 * @throws Error when a photo drawer is asked for another format.
 */
export function drawFrameInto(drawer: FrameDrawer, format: RawVideoFormat, frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
  if (drawer instanceof FrameRenderer) drawer.renderFormatInto(format, frameIndex, mouth, target);
  else if (format === 'rgba') drawer.renderInto(frameIndex, mouth, target);
  else throw new Error(`this avatar draws rgba frames, not ${format}`);
}
