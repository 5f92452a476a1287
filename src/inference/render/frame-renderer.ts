import { readFile } from 'node:fs/promises';
import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../avatar/definition.js';
import { lookOf } from '../avatar/definition.js';
import { idlePoseAt, loopedIdlePoseAt } from '../avatar/idle-motion.js';
import type { AvatarLook } from '../avatar/look.js';
import type { MouthShape } from '../lipsync/mouth.js';
import { paintAvatar } from './avatar-painter.js';
import { drawBackdrop, drawCover } from './background.js';
import { DESIGN_SIZE, type Ctx } from './layout.js';

/** What goes behind the avatar. */
export interface FrameRendererOptions {
  /** An image drawn to cover the whole frame behind the avatar (cropped, not stretched). */
  background?: Image | Canvas;
  /**
   * Without a background image: `true` leaves the frame transparent (previews, thumbnails);
   * `false` (default) paints the look's opaque backdrop gradient, as video needs.
   */
  transparent?: boolean;
  /** Make the idle motion a seamless loop of this many frames (catalogue idle videos). */
  loopFrames?: number;
}

/**
 * Draws the frames of one avatar into one reusable canvas. The background is composed once at
 * construction; each frame repaints only the avatar on top of it.
 */
export class FrameRenderer {
  /** The canvas the last frame was drawn into (frame size). */
  readonly canvas: Canvas;
  readonly width: number;
  readonly height: number;
  private readonly ctx: Ctx;
  private readonly look: AvatarLook;
  private readonly backdrop: Canvas | undefined;
  private readonly scale: number;
  private readonly loopFrames: number | undefined;

  constructor(
    private readonly definition: AvatarDefinition,
    options: FrameRendererOptions = {},
  ) {
    this.width = definition.width;
    this.height = definition.height;
    this.look = lookOf(definition);
    this.canvas = createCanvas(this.width, this.height);
    this.ctx = this.canvas.getContext('2d');
    this.scale = Math.min(this.width, this.height) / DESIGN_SIZE;
    this.loopFrames = options.loopFrames;
    if (options.background || !options.transparent) {
      this.backdrop = createCanvas(this.width, this.height);
      const bctx = this.backdrop.getContext('2d');
      if (options.background) drawCover(bctx, options.background, this.width, this.height);
      else drawBackdrop(bctx, this.look, this.width, this.height);
    }
  }

  /** A renderer with the background image at `backgroundPath` (any format the canvas decodes). */
  static async create(
    definition: AvatarDefinition,
    options: { backgroundPath?: string; transparent?: boolean } = {},
  ): Promise<FrameRenderer> {
    // Read the bytes ourselves: loadImage would treat a string that looks like a URL as one to fetch.
    const background = options.backgroundPath ? await loadImage(await readFile(options.backgroundPath)) : undefined;
    return new FrameRenderer(definition, { background, transparent: options.transparent });
  }

  /** Draws frame `frameIndex` with `mouth` into {@link canvas}. */
  draw(frameIndex: number, mouth: MouthShape): void {
    const { ctx } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    if (this.backdrop) ctx.drawImage(this.backdrop, 0, 0);
    // Centre the design square horizontally and stand it on the bottom edge.
    ctx.setTransform(this.scale, 0, 0, this.scale, (this.width - DESIGN_SIZE * this.scale) / 2, this.height - DESIGN_SIZE * this.scale);
    const pose = this.loopFrames
      ? loopedIdlePoseAt(this.definition, frameIndex, this.loopFrames)
      : idlePoseAt(this.definition, frameIndex);
    paintAvatar(ctx, this.look, pose, mouth);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  /**
   * Draws frame `frameIndex` and returns its pixels: `width × height × 4` RGBA bytes, row by row,
   * premultiplied by alpha (identical to straight RGBA when the frame is opaque, i.e. not
   * `transparent`). The canvas and background are reused; the one per-frame buffer is the copy
   * @napi-rs/canvas makes (it offers no read into a caller's buffer) and belongs to the caller.
   */
  render(frameIndex: number, mouth: MouthShape): Buffer {
    this.draw(frameIndex, mouth);
    return this.canvas.data();
  }

  /** Draws frame `frameIndex` and encodes it as PNG. */
  async renderPng(frameIndex: number, mouth: MouthShape): Promise<Buffer> {
    this.draw(frameIndex, mouth);
    return this.canvas.encode('png');
  }
}
