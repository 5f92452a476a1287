import { readFile } from 'node:fs/promises';
import { createCanvas, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { lookOf } from '../../domain/avatar/definition.js';
import { idlePoseAt, loopedIdlePoseAt, type IdlePose } from '../avatar/idle-motion.js';
import type { MouthShape } from '../lipsync/mouth.js';
import {
  applyPartTransform,
  avatarGeometry,
  browRaise,
  paintAvatar,
  paintPart,
  PART_ANCHOR,
  PART_ORDER,
  STATIC_PARTS,
  type AvatarGeometry,
  type AvatarPart,
} from './avatar-painter.js';
import { drawBackdrop, drawCover } from './background.js';
import { jawTop } from './parts/head.js';
import { MAX_JAW_DROP, mouthGeometry } from './parts/mouth.js';
import { drawPixelsOver, SpanLayer } from './compositor.js';
import { avatarLayers, type AvatarLayers, type Box, type Layer } from './avatar-layers.js';
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
   * Draw the parts into offscreen layers once (hair, body, ears, blush and nose, and the skin, brows
   * and open eyes at rest) and per frame place them with the pose's offset; only the skin below the
   * jaw line, the eyes while they blink or glance, and the mouth are painted as vectors each frame.
   * Default `true`; `false` paints everything as vectors every frame (the reference rendering, with
   * the exact head tilt).
   */
  cacheLayers?: boolean;
}

/** What one frame draws: the pose (tilt in whole steps), the mouth, the head's layers and the brow raise. */
interface FrameState {
  pose: IdlePose;
  mouth: MouthShape;
  headLayers: Map<AvatarPart, Layer>;
  raise: number;
}

/**
 * The face: the parts {@link FrameRenderer.renderInto} draws on a small canvas each frame (in this
 * order, consecutive in the painting order); the others come from layers composed in TypeScript.
 */
const FACE_PARTS: readonly AvatarPart[] = ['headSkin', 'faceDetails', 'brows', 'eyes', 'mouth'];
/** The parts under the face and over it, composed from their layers. */
const UNDER_FACE = PART_ORDER.slice(0, PART_ORDER.indexOf(FACE_PARTS[0]!));
const OVER_FACE = PART_ORDER.slice(PART_ORDER.indexOf(FACE_PARTS[FACE_PARTS.length - 1]!) + 1);

/**
 * Below this jaw drop (frame pixels) the head's skin comes from its layer alone; from it on, the skin
 * below the jaw line is painted for the frame's mouth.
 */
const JAW_REPAINT_PX = 0.25;

/**
 * Step of the head tilt (radians) with cached layers. Bitmaps placed with a rotation are several
 * times slower to draw than ones only moved, so the head's layers are drawn once per tilt step
 * (lazily, as the motion reaches it) and the whole head, vectors included, tilts in these steps:
 * 0.001 rad moves the crown by about a quarter of a pixel, less than the tilt changes per frame.
 */
const TILT_STEP = 0.001;

/**
 * Draws the frames of one avatar into one reusable canvas. The background is composed once at
 * construction; each frame repaints only the avatar on top of it, from cached layers and vectors.
 */
export class FrameRenderer {
  /** The canvas {@link draw} draws into (frame size); {@link renderInto} may compose without it. */
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
  /** The cached layers (shared with later renderers of the same look on this thread); none when not cached. */
  private readonly layers: AvatarLayers | undefined;
  /** The backdrop's pixels, with cached layers (see {@link renderInto}). */
  private readonly backdropWords: Uint32Array | undefined;
  /** The small canvas the face is drawn on by {@link renderInto}. */
  private face: Canvas | undefined;
  /** The last frame's pixels under the face, and the placement of the layers they hold. */
  private under: { key: string; words: Uint32Array } | undefined;

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
      const { width, height, scale, originX, originY } = this;
      this.layers = avatarLayers(this.geometry, { width, height, scale, originX, originY });
      if (this.backdrop) this.backdropWords = new Uint32Array(new Uint8Array(this.backdrop.data()).buffer);
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
    const frame = this.frameState(frameIndex, mouth);
    if (!frame) {
      this.designTransform(ctx, 0, 0);
      paintAvatar(ctx, this.geometry.look, this.snapped(this.poseAt(frameIndex)), mouth);
    } else {
      for (const part of PART_ORDER) this.drawPart(ctx, part, frame, 0, 0);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  /**
   * Draws frame `frameIndex` with `mouth` into `target` (`width × height × 4` bytes, premultiplied
   * RGBA as {@link render} returns them; a slot of shared memory, say). With cached layers and a
   * backdrop (not `transparent`), the layers are composed in TypeScript straight into `target`, and
   * only the jaw and mouth (the whole face while the eyes blink or glance) are drawn on a small
   * canvas and read back: no full-frame buffer is allocated. Otherwise it draws into {@link canvas}
   * and copies its pixels. The result equals {@link draw}'s up to rounding (±1) and the anti-aliasing
   * of the jaw's edge.
   */
  renderInto(frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    const { width, height } = this;
    if (target.byteLength !== width * height * 4) throw new RangeError(`target has ${target.byteLength} bytes, expected ${width * height * 4}`);
    const frame = this.backdropWords && target.byteOffset % 4 === 0 ? this.frameState(frameIndex, mouth) : undefined;
    if (!frame || !this.backdropWords) {
      this.draw(frameIndex, mouth);
      target.set(this.canvas.data());
      return;
    }
    const words = new Uint32Array(target.buffer, target.byteOffset, width * height);
    // What lies under the face (backdrop, hair behind, body, ears) often stays put from one frame to
    // the next (only the mouth and eyes moved): then it is copied from the last frame's.
    const [hx, hy] = this.layerOffset('hairBack', frame);
    const [bx, by] = this.layerOffset('body', frame);
    const key = `${hx} ${hy} ${bx} ${by} ${frame.pose.headTilt}`;
    if (this.under?.key !== key) {
      const under = this.under?.words ?? new Uint32Array(width * height);
      under.set(this.backdropWords);
      for (const part of UNDER_FACE) this.composeLayer(under, part, frame);
      this.under = { key, words: under };
    }
    words.set(this.under.words);
    this.composeFace(words, frame);
    for (const part of OVER_FACE) this.composeLayer(words, part, frame);
  }

  /** Composes `part`'s layer, placed for `frame`, over `words` (above frame row `endRow` only). */
  private composeLayer(words: Uint32Array, part: AvatarPart, frame: FrameState, endRow = this.height): void {
    const layer = this.layerOf(part, frame);
    if (!layer) return;
    const [dx, dy] = this.layerOffset(part, frame);
    layer.spans ??= new SpanLayer(layer.canvas.data(), layer.canvas.width, layer.canvas.height);
    layer.spans.drawOver(words, this.width, this.height, { x: layer.x + dx, y: layer.y + dy }, endRow);
  }

  /**
   * The face over `words`. Above the jaw line (the whole face while the eyes blink or glance) it is
   * composed from the layers of the skin, nose and cheeks, brows and open eyes; from there down, the
   * parts are drawn on the face canvas, the jaw and mouth as vectors, and composed from its pixels.
   */
  private composeFace(words: Uint32Array, frame: FrameState): void {
    const box = this.faceBox(frame);
    const top = Math.max(box.y0, Math.min(box.y1, this.eyesFromLayer(frame.pose) ? this.jawRow(frame.pose) : box.y0));
    for (const part of FACE_PARTS) if (part !== 'mouth') this.composeLayer(words, part, frame, top);
    const w = box.x1 - box.x0;
    const h = box.y1 - top;
    if (h <= 0) return;
    if (!this.face || this.face.width < w || this.face.height < h) {
      this.face = createCanvas(Math.max(w, this.face?.width ?? 0), Math.max(h, this.face?.height ?? 0));
    }
    const face = this.face;
    const fctx = face.getContext('2d');
    fctx.setTransform(1, 0, 0, 1, 0, 0);
    fctx.clearRect(0, 0, face.width, face.height);
    for (const part of FACE_PARTS) this.drawPart(fctx, part, frame, box.x0, top);
    fctx.setTransform(1, 0, 0, 1, 0, 0);
    const pixels = face.data();
    const count = face.width * face.height;
    const source = pixels.byteOffset % 4 === 0 ? new Uint32Array(pixels.buffer, pixels.byteOffset, count) : new Uint32Array(new Uint8Array(pixels).buffer);
    drawPixelsOver(words, this.width, this.height, source, face.width, Math.min(face.height, h), { x: box.x0, y: top });
  }

  /** Whether the eyes come from their layer (open, looking ahead) in `pose`. */
  private eyesFromLayer(pose: IdlePose): boolean {
    return pose.blink === 0 && pose.gazeX === 0 && pose.gazeY === 0;
  }

  /**
   * The highest frame row the jaw line reaches in the tilted head, less one for its edge: above it,
   * the head outline does not depend on the jaw (see jawTop()).
   */
  private jawRow(pose: IdlePose): number {
    const { l, pivotY } = this.geometry;
    const tilt = pose.headTilt;
    const jawLine = pivotY + pose.headY - pose.breath * 1.2 + (jawTop(l) - pivotY) * Math.cos(tilt) - l.rx * 1.05 * Math.abs(Math.sin(tilt));
    return Math.floor(this.originY + jawLine * this.scale) - 1;
  }

  /**
   * The frame rectangle the face parts can paint in this frame: the head's layers of the frame's
   * tilt, moved with the head, with room below for the dropped jaw and above for raised brows.
   */
  private faceBox(frame: FrameState): Box {
    const [dx, dy] = this.layerOffset('headSkin', frame);
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (const part of FACE_PARTS) {
      const layer = frame.headLayers.get(part);
      if (!layer) continue;
      box.x0 = Math.min(box.x0, layer.x + dx);
      box.y0 = Math.min(box.y0, layer.y + dy);
      box.x1 = Math.max(box.x1, layer.x + dx + layer.canvas.width);
      box.y1 = Math.max(box.y1, layer.y + dy + layer.canvas.height);
    }
    const room = Math.ceil(4 * this.scale) + 2;
    const jaw = Math.ceil(MAX_JAW_DROP * 1.2 * this.scale) + 3;
    return { x0: Math.floor(box.x0) - room, y0: Math.floor(box.y0) - room, x1: Math.ceil(box.x1) + room, y1: Math.ceil(box.y1) + jaw };
  }

  /** The pose, cached layers and brow raise of frame `frameIndex`; none without cached layers. */
  private frameState(frameIndex: number, mouth: MouthShape): FrameState | undefined {
    if (!this.layers) return undefined;
    // The head and body move by whole frame pixels (see snapped()).
    const exact = this.snapped(this.poseAt(frameIndex));
    const step = Math.round(exact.headTilt / TILT_STEP);
    const pose = { ...exact, headTilt: step * TILT_STEP };
    return { pose, mouth, headLayers: this.layers.headAt(step, pose.headTilt), raise: browRaise(mouth) };
  }

  /** `part`'s cached layer for `frame` (the body's, or the head's at the frame's tilt); none when it paints nothing. */
  private layerOf(part: AvatarPart, frame: FrameState): Layer | undefined {
    return part === 'body' ? this.layers?.body : frame.headLayers.get(part);
  }

  /**
   * Where `part`'s layer goes in `frame`: its offset from rest in whole frame pixels (a bitmap moved
   * by whole pixels is copied, not resampled, and the encoder finds the moved parts again exactly).
   */
  private layerOffset(part: AvatarPart, frame: FrameState): [number, number] {
    const { pose, raise } = frame;
    let [dx, dy] = PART_ANCHOR[part] === 'head' ? [pose.headX, pose.headY - pose.breath * 1.2] : [pose.headX * 0.2, -pose.breath * 2.6];
    if (part === 'brows') {
      // Straight up in the tilted head.
      dx += raise * Math.sin(pose.headTilt);
      dy -= raise * Math.cos(pose.headTilt);
    }
    return [Math.round(dx * this.scale), Math.round(dy * this.scale)];
  }

  /**
   * Draws one part of `frame` into `ctx`, whose pixel (0, 0) is frame pixel (`sx`, `sy`): from its
   * layer where it has one that fits, else as vectors.
   */
  private drawPart(ctx: Ctx, part: AvatarPart, frame: FrameState, sx: number, sy: number): void {
    const { pose, mouth, raise } = frame;
    const layer = this.layerOf(part, frame);
    // Brows only move up with the mouth; eyes have a layer open and looking ahead; the skin's
    // layer has the jaw closed (see drawHeadSkin).
    const fromLayer =
      part === 'brows' ? Number.isFinite(raise)
      : part === 'eyes' ? this.eyesFromLayer(pose)
      : part === 'headSkin' || STATIC_PARTS.includes(part);
    if (layer && part === 'headSkin') {
      this.drawHeadSkin(ctx, layer, frame, sx, sy);
    } else if (layer && fromLayer) {
      const [dx, dy] = this.layerOffset(part, frame);
      ctx.setTransform(1, 0, 0, 1, dx - sx, dy - sy);
      ctx.drawImage(layer.canvas, layer.x, layer.y);
    } else if (!fromLayer) {
      this.designTransform(ctx, sx, sy);
      applyPartTransform(ctx, this.geometry, PART_ANCHOR[part], pose);
      paintPart(ctx, this.geometry, part, pose, mouth);
    }
  }

  /**
   * The head's skin from its layer (jaw closed), except that with the jaw dropped the rows from the
   * jaw line down are painted for this frame's mouth instead: the outline above that line does not
   * depend on the jaw, and painting a part of the head is cheaper than all of it.
   */
  private drawHeadSkin(ctx: Ctx, layer: Layer, frame: FrameState, sx: number, sy: number): void {
    const { geometry } = this;
    const { pose, mouth } = frame;
    const [dx, dy] = this.layerOffset('headSkin', frame);
    const x = layer.x + dx;
    const top = layer.y + dy;
    const { width, height } = layer.canvas;
    const repaint = mouthGeometry(mouth, geometry.look, geometry.l).jawDrop * this.scale >= JAW_REPAINT_PX;
    const rows = repaint ? Math.max(0, Math.min(height, this.jawRow(pose) - top)) : height;
    ctx.setTransform(1, 0, 0, 1, -sx, -sy);
    if (rows > 0) ctx.drawImage(layer.canvas, 0, 0, width, rows, x, top, width, rows);
    if (!repaint) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, top + rows, this.width, this.height - top - rows);
    ctx.clip();
    this.designTransform(ctx, sx, sy);
    applyPartTransform(ctx, geometry, 'head', pose);
    paintPart(ctx, geometry, 'headSkin', pose, mouth);
    ctx.restore();
  }

  /**
   * Draws frame `frameIndex` and returns its pixels in a fresh buffer that belongs to the caller:
   * `width × height × 4` RGBA bytes, row by row, premultiplied by alpha (identical to straight RGBA
   * when the frame is opaque, i.e. not `transparent`). See {@link renderInto}.
   */
  render(frameIndex: number, mouth: MouthShape): Buffer {
    const pixels = Buffer.allocUnsafeSlow(this.width * this.height * 4);
    this.renderInto(frameIndex, mouth, pixels);
    return pixels;
  }

  /** Draws frame `frameIndex` and encodes it as PNG. */
  async renderPng(frameIndex: number, mouth: MouthShape): Promise<Buffer> {
    this.draw(frameIndex, mouth);
    return this.canvas.encode('png');
  }

  /**
   * `pose` with the head's offset rounded to whole frame pixels (the body's is rounded where its
   * layer is placed). Cached layers are then copied, not resampled, which is several times cheaper,
   * the head's vector parts move with its layers, and the encoder finds moved parts again exactly;
   * the motion advances in steps of one pixel, which at 25 fps reads as smooth.
   */
  private snapped(pose: IdlePose): IdlePose {
    const snap = (designPx: number) => Math.round(designPx * this.scale) / this.scale;
    const lift = pose.breath * 1.2;
    return { ...pose, headX: snap(pose.headX), headY: snap(pose.headY - lift) + lift };
  }

  /** Sets `ctx`'s transform to the design square (no pose), for a canvas whose (0, 0) is frame pixel (`sx`, `sy`). */
  private designTransform(ctx: Ctx, sx: number, sy: number): void {
    ctx.setTransform(this.scale, 0, 0, this.scale, this.originX - sx, this.originY - sy);
  }
}
