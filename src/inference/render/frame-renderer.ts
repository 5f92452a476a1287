import { readFile } from 'node:fs/promises';
import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../avatar/definition.js';
import { lookOf } from '../avatar/definition.js';
import { idlePoseAt, loopedIdlePoseAt, type IdlePose } from '../avatar/idle-motion.js';
import type { MouthShape } from '../lipsync/mouth.js';
import {
  applyPartTransform,
  avatarGeometry,
  paintAvatar,
  paintPart,
  PART_ANCHOR,
  PART_ORDER,
  REST_POSE,
  STATIC_PARTS,
  type AvatarGeometry,
  type AvatarPart,
} from './avatar-painter.js';
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
  /**
   * Draw the parts that depend on the look only (hair, body, ears, blush and nose) once into
   * offscreen layers, `layerScale` times the frame resolution, and per frame place them with the
   * pose's transform; only the head outline, brows, eyes and mouth are painted as vectors each
   * frame. Default `true`; `false` paints everything as vectors every frame (reference rendering).
   */
  cacheLayers?: boolean;
  /** Resolution of the cached layers relative to the frame (default 2: supersampled, sharp when moved). */
  layerScale?: number;
}

/** One cached part: its pixels at `layerScale` × frame resolution, and where they sit in the frame at rest. */
interface Layer {
  canvas: Canvas;
  /** Frame-pixel rectangle the layer covers when the pose is at rest. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Design pixels of motion room around the frame: parts just outside it at rest may move in. */
const MOTION_MARGIN = 24;

/**
 * Draws the frames of one avatar into one reusable canvas. The background is composed once at
 * construction; each frame repaints only the avatar on top of it, from cached layers and vectors.
 */
export class FrameRenderer {
  /** The canvas the last frame was drawn into (frame size). */
  readonly canvas: Canvas;
  readonly width: number;
  readonly height: number;
  private readonly ctx: Ctx;
  private readonly geometry: AvatarGeometry;
  private readonly backdrop: Canvas | undefined;
  private readonly scale: number;
  /** Where the design square's origin lies in the frame. */
  private readonly originX: number;
  private readonly originY: number;
  private readonly loopFrames: number | undefined;
  private readonly layers: Map<AvatarPart, Layer> | undefined;

  constructor(
    private readonly definition: AvatarDefinition,
    options: FrameRendererOptions = {},
  ) {
    this.width = definition.width;
    this.height = definition.height;
    this.geometry = avatarGeometry(lookOf(definition));
    this.canvas = createCanvas(this.width, this.height);
    this.ctx = this.canvas.getContext('2d');
    this.scale = Math.min(this.width, this.height) / DESIGN_SIZE;
    // Centre the design square horizontally and stand it on the bottom edge.
    this.originX = (this.width - DESIGN_SIZE * this.scale) / 2;
    this.originY = this.height - DESIGN_SIZE * this.scale;
    this.loopFrames = options.loopFrames;
    if (options.background || !options.transparent) {
      this.backdrop = createCanvas(this.width, this.height);
      const bctx = this.backdrop.getContext('2d');
      if (options.background) drawCover(bctx, options.background, this.width, this.height);
      else drawBackdrop(bctx, this.geometry.look, this.width, this.height);
    }
    if (options.cacheLayers ?? true) {
      const layerScale = options.layerScale ?? 2;
      this.layers = new Map(STATIC_PARTS.map((part) => [part, this.renderLayer(part, layerScale)] as const));
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

  /** The idle pose of frame `frameIndex`. */
  poseAt(frameIndex: number): IdlePose {
    return this.loopFrames ? loopedIdlePoseAt(this.definition, frameIndex, this.loopFrames) : idlePoseAt(this.definition, frameIndex);
  }

  /** Draws frame `frameIndex` with `mouth` into {@link canvas}. */
  draw(frameIndex: number, mouth: MouthShape): void {
    const { ctx } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (this.backdrop) {
      // Replaces the last frame's pixels (a background image may have transparent ones).
      ctx.globalCompositeOperation = 'copy';
      ctx.drawImage(this.backdrop, 0, 0);
      ctx.globalCompositeOperation = 'source-over';
    } else {
      ctx.clearRect(0, 0, this.width, this.height);
    }
    const pose = this.poseAt(frameIndex);
    if (!this.layers) {
      this.designTransform();
      paintAvatar(ctx, this.geometry.look, pose, mouth);
    } else {
      for (const part of PART_ORDER) {
        this.designTransform();
        applyPartTransform(ctx, this.geometry, PART_ANCHOR[part], pose);
        const layer = this.layers.get(part);
        if (layer) {
          // Back from design space to frame pixels, where the layer was drawn at rest.
          ctx.scale(1 / this.scale, 1 / this.scale);
          ctx.translate(-this.originX, -this.originY);
          ctx.drawImage(layer.canvas, layer.x, layer.y, layer.width, layer.height);
        } else {
          paintPart(ctx, this.geometry, part, pose, mouth);
        }
      }
    }
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

  /** Sets the frame transform of the design square (no pose). */
  private designTransform(): void {
    this.ctx.setTransform(this.scale, 0, 0, this.scale, this.originX, this.originY);
  }

  /**
   * Paints `part` at rest into a layer `layerScale` times the frame resolution, cropped to the
   * pixels it covers (plus room for the motion near the frame's edges), aligned to frame pixels.
   */
  private renderLayer(part: AvatarPart, layerScale: number): Layer {
    const margin = Math.ceil(MOTION_MARGIN * this.scale);
    // The scratch covers the frame plus the margin, in whole frame pixels.
    const x0 = -margin;
    const y0 = -margin;
    const sw = (this.width + 2 * margin) * layerScale;
    const sh = (this.height + 2 * margin) * layerScale;
    const scratch = createCanvas(sw, sh);
    const sctx = scratch.getContext('2d');
    sctx.setTransform(layerScale * this.scale, 0, 0, layerScale * this.scale, (this.originX - x0) * layerScale, (this.originY - y0) * layerScale);
    paintPart(sctx, this.geometry, part, REST_POSE, RESTING_FOR_LAYERS);
    const box = opaqueBounds(scratch.data(), sw, sh);
    if (!box) return { canvas: createCanvas(1, 1), x: 0, y: 0, width: 0, height: 0 };
    // Whole frame pixels around the painted ones, so that the layer's pixel grid stays on the frame's.
    const fx0 = Math.floor(box.x0 / layerScale);
    const fy0 = Math.floor(box.y0 / layerScale);
    const fx1 = Math.ceil(box.x1 / layerScale);
    const fy1 = Math.ceil(box.y1 / layerScale);
    const canvas = createCanvas((fx1 - fx0) * layerScale, (fy1 - fy0) * layerScale);
    canvas.getContext('2d').drawImage(scratch, -fx0 * layerScale, -fy0 * layerScale);
    return { canvas, x: fx0 + x0, y: fy0 + y0, width: fx1 - fx0, height: fy1 - fy0 };
  }
}

/** The mouth the static layers are drawn with: they do not read it. */
const RESTING_FOR_LAYERS: MouthShape = { open: 0, width: 0, round: 0, closed: 1, teeth: 0 };

/** The smallest rectangle (pixels, end exclusive) holding every pixel with alpha > 0, or none. */
function opaqueBounds(rgba: Uint8Array, width: number, height: number): { x0: number; y0: number; x1: number; y1: number } | undefined {
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width * 4;
    let first = -1;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (rgba[row + x * 4 + 3] !== 0) {
        if (first < 0) first = x;
        last = x;
      }
    }
    if (first < 0) continue;
    if (y0 > y) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
  }
  return x1 < 0 ? undefined : { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}
