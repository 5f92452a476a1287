import { readFile } from 'node:fs/promises';
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { lookOf } from '../../domain/avatar/definition.js';
import { idlePoseFor, type IdlePose } from '../avatar/idle-motion.js';
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
import { drawPixelsOver, SpanLayer, type Box } from './compositor.js';
import { avatarLayers, type AvatarLayers, type Layer } from './avatar-layers.js';
import { rgbaToYuv420 } from './yuv420.js';
import { yuv420Bytes, type RawVideoFormat } from '../media/raw-video.js';
import type { Ctx } from './layout.js';
import { frameDesign } from './framing.js';
import { loadCheckedImage } from '../image/load-image.js';

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
 * How far one step of the head tilt moves the crown, in frame pixels, with cached layers. Bitmaps placed with a
 * rotation are several times slower to draw than ones only moved, so the head's layers are drawn once per tilt step
 * (lazily, as the motion reaches it) and the whole head, vectors included, tilts in these steps. Half a pixel at the
 * crown (the tilt is then at most a quarter of a pixel off there) is 0.0023–0.0026 rad at 512×512 for the built-in
 * avatars and 0.0011–0.0012 at 1920×1080: their head's layers then change on 22–30 % of the frames at 512×512 and
 * 31–41 % at 1280×720, against 45–60 % with the 0.001 rad step used before, and a frame where they change costs
 * about half as much again to draw as one where only the mouth moves.
 */
const TILT_STEP_PX = 0.5;

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
  /** Step of the head tilt in radians (see {@link TILT_STEP_PX}). */
  private readonly tiltStep: number;
  /** The cached layers (shared with later renderers of the same look on this thread); none when not cached. */
  private readonly layers: AvatarLayers | undefined;
  /** The backdrop's pixels, with cached layers (see {@link renderInto}). */
  private readonly backdropWords: Uint32Array | undefined;
  /**
   * The small canvases the face is drawn on by {@link renderInto}: `[0]` for the jaw and mouth (most frames),
   * `[1]` for the whole face (the eyes blink or glance). Each grows to the largest size it was needed at; the
   * whole of it is cleared and read back every frame, so the common case keeps a small one.
   */
  private readonly faces: (Canvas | undefined)[] = [];
  /** The last frame composed with cached layers (see {@link composeKept}). */
  private kept: KeptFrame | undefined;
  /**
   * The last frame in yuv420p, the pixels it was converted from, and the box of {@link kept} it has not caught
   * up with (see {@link renderYuv420Into}).
   */
  private yuv: { bytes: Uint8Array; from: Uint32Array; stale: Box[] } | undefined;

  constructor(
    private readonly definition: AvatarDefinition,
    options: FrameRendererOptions = {},
  ) {
    this.width = definition.width;
    this.height = definition.height;
    this.geometry = avatarGeometry(lookOf(definition));
    this.canvas = createCanvas(this.width, this.height);
    this.ctx = this.canvas.getContext('2d');
    // Head and shoulders centred, scaled to the frame's shorter side (see frameDesign()).
    ({ scale: this.scale, originX: this.originX, originY: this.originY } = frameDesign(this.width, this.height));
    // The crown's distance from the pivot the head tilts about, in frame pixels.
    const crown = (this.geometry.pivotY - (this.geometry.l.cy - this.geometry.l.ry)) * this.scale;
    this.tiltStep = TILT_STEP_PX / crown;
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

  /**
   * A renderer with the background image at `backgroundPath` (JPEG, PNG or WebP of at most `MAX_IMAGE_PIXELS`).
   * @throws Error naming the reason when the background is refused or cannot be decoded.
   */
  static async create(
    definition: AvatarDefinition,
    options: { backgroundPath?: string; transparent?: boolean } = {},
  ): Promise<FrameRenderer> {
    const background = options.backgroundPath
      ? await loadCheckedImage(await readFile(options.backgroundPath)).catch((error: unknown) => {
          throw new Error(`the background image cannot be used: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        })
      : undefined;
    return new FrameRenderer(definition, { background, transparent: options.transparent });
  }

  /** The idle pose of frame `frameIndex`. */
  poseAt(frameIndex: number): IdlePose {
    return idlePoseFor(this.definition, frameIndex, this.loopFrames);
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
      for (const part of PART_ORDER) this.drawPart(ctx, part, frame, 0, 0, this);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  /**
   * Draws frame `frameIndex` with `mouth` into `target` (`width × height × 4` bytes, premultiplied
   * RGBA as {@link render} returns them; a slot of shared memory, say). With cached layers and a
   * backdrop (not `transparent`), the layers are composed in TypeScript (see {@link composeKept}), and
   * only the jaw and mouth (the whole face while the eyes blink or glance) are drawn on a small
   * canvas and read back: no full-frame buffer is allocated. Otherwise it draws into {@link canvas}
   * and copies its pixels. The result equals {@link draw}'s up to rounding (±1) and the anti-aliasing
   * of the jaw's edge.
   */
  renderInto(frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    const { width, height } = this;
    if (target.byteLength !== width * height * 4) throw new RangeError(`target has ${target.byteLength} bytes, expected ${width * height * 4}`);
    const kept = this.composeKept(frameIndex, mouth);
    if (kept) target.set(new Uint8Array(kept.buffer, kept.byteOffset, kept.byteLength));
    else target.set(this.canvas.data());
  }

  /**
   * Draws frame `frameIndex` with `mouth` into `target` as yuv420p (`yuv420Bytes(width, height)` bytes:
   * BT.601 limited range, as ffmpeg converts RGB by default), the frame {@link renderInto} draws, so that
   * the encoder needs no conversion. With cached layers only the rectangle that changed since the last
   * frame is converted (between two frames of a talking head, mostly the face), and in it only the 2×2 blocks
   * that differ; the frame must be opaque (not `transparent`) and its sides even.
   */
  renderYuv420Into(frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    const { width, height } = this;
    const bytes = yuv420Bytes(width, height);
    if (target.byteLength !== bytes) throw new RangeError(`target has ${target.byteLength} bytes, expected ${bytes}`);
    const whole = { x0: 0, y0: 0, x1: width, y1: height };
    const kept = this.composeKept(frameIndex, mouth);
    if (!kept) {
      const rgba = this.canvas.data();
      const words = rgba.byteOffset % 4 === 0 ? new Uint32Array(rgba.buffer, rgba.byteOffset, width * height) : new Uint32Array(new Uint8Array(rgba).buffer);
      rgbaToYuv420(words, width, height, target, whole);
      return;
    }
    // At first every block differs from the zeros of `from` (the frame is opaque) and is converted.
    const yuv = (this.yuv ??= { bytes: new Uint8Array(bytes), from: new Uint32Array(width * height), stale: [whole] });
    for (const box of yuv.stale) rgbaToYuv420(kept, width, height, yuv.bytes, box, yuv.from);
    yuv.stale.length = 0;
    target.set(yuv.bytes);
  }

  /** Draws frame `frameIndex` with `mouth` into `target` in `format` ({@link renderInto} or {@link renderYuv420Into}). */
  renderFormatInto(format: RawVideoFormat, frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    if (format === 'yuv420p') this.renderYuv420Into(frameIndex, mouth, target);
    else this.renderInto(frameIndex, mouth, target);
  }

  /**
   * Composes frame `frameIndex` into the kept frame and returns its pixels (`width × height` words), or
   * draws it into {@link canvas} and returns nothing when there are no cached layers or no backdrop.
   * The kept frame holds the last frame's pixels, so only a rectangle is composed again: while the head
   * and body stay where they were (the idle motion moves them by whole pixels, now and then), the face
   * only; otherwise the avatar where it was and where it is now. In it, the backdrop is restored and the
   * layers and the face are composed over it in the painting order.
   */
  private composeKept(frameIndex: number, mouth: MouthShape): Uint32Array | undefined {
    const frame = this.backdropWords ? this.frameState(frameIndex, mouth) : undefined;
    if (!frame || !this.backdropWords) {
      this.draw(frameIndex, mouth);
      return undefined;
    }
    const { width, height } = this;
    const [hx, hy] = this.layerOffset('headSkin', frame);
    const [bx, by] = this.layerOffset('body', frame);
    const headKey = `${hx} ${hy} ${frame.pose.headTilt}`;
    const bodyKey = `${bx} ${by}`;
    const face = this.faceBox(frame);
    const head = this.headBox(frame, face);
    const body = this.partBox('body', frame);
    const moving = this.movingBoxes(frame, face);
    let dirty: Box[] = [];
    if (!this.kept) {
      dirty = [{ x0: 0, y0: 0, x1: width, y1: height }];
      this.kept = { words: new Uint32Array(width * height), headKey, bodyKey, face, head, body, moving };
    } else {
      const last = this.kept;
      if (last.headKey !== headKey) {
        // The head moved or tilted: all of it, where it was and where it is now.
        dirty.push(union(last.head, head));
      } else if (last.moving.length === moving.length) {
        // The jaw and mouth, and the brows, where they were and where they are now.
        dirty.push(...moving.map((box, i) => union(box, last.moving[i]!)));
      } else {
        // The eyes blink or glance in one of the two frames: the whole face.
        dirty.push(union(last.face, face));
      }
      if (last.bodyKey !== bodyKey) {
        if (last.body) dirty.push(last.body);
        if (body) dirty.push(body);
      }
      Object.assign(last, { headKey, bodyKey, face, head, body, moving });
    }
    // Even edges (each chroma sample of yuv420p covers 2×2 pixels), within the frame; boxes that overlap merged.
    dirty = disjoint(
      dirty.map((box) => ({
        x0: Math.max(0, box.x0 & ~1),
        y0: Math.max(0, box.y0 & ~1),
        x1: Math.min(width, box.x1 + (box.x1 & 1)),
        y1: Math.min(height, box.y1 + (box.y1 & 1)),
      })),
    ).filter((box) => box.x0 < box.x1 && box.y0 < box.y1);
    const { words } = this.kept;
    let faceCanvas: FaceCanvas | undefined | null = null;
    for (const clip of dirty) {
      for (let y = clip.y0; y < clip.y1; y++) {
        const row = y * width;
        words.set(this.backdropWords.subarray(row + clip.x0, row + clip.x1), row + clip.x0);
      }
      for (const part of UNDER_FACE) this.composeLayer(words, part, frame, clip);
      // The face's canvas is drawn once a frame, for the first box that needs it, and composed within each box.
      faceCanvas = this.composeFace(words, frame, face, clip, faceCanvas);
      for (const part of OVER_FACE) this.composeLayer(words, part, frame, clip);
      if (this.yuv) this.yuv.stale.push(clip);
    }
    return words;
  }

  /**
   * The rectangles of `frame` that change with the mouth while the head and body stay put: the face from the jaw
   * line down (drawn on the face canvas each frame) and the brows (raised with the open mouth); the whole face
   * box while the eyes blink or glance.
   */
  private movingBoxes(frame: FrameState, face: Box): Box[] {
    if (!this.eyesFromLayer(frame.pose)) return [face];
    const top = Math.max(face.y0, Math.min(face.y1, this.jawRow(frame.pose)));
    const jaw = { ...face, y0: top };
    const brows = this.partBox('brows', frame);
    return brows ? [jaw, brows] : [jaw];
  }

  /** The rectangle the head's parts of `frame` cover (their layers where they are placed, and the face box). */
  private headBox(frame: FrameState, face: Box): Box {
    let box = face;
    for (const part of PART_ORDER) {
      if (PART_ANCHOR[part] !== 'head') continue;
      const placed = this.partBox(part, frame);
      if (placed) box = union(box, placed);
    }
    return box;
  }

  /** The rectangle `part`'s layer covers where `frame` places it; none without a layer. */
  private partBox(part: AvatarPart, frame: FrameState): Box | undefined {
    const layer = this.layerOf(part, frame);
    if (!layer) return undefined;
    const [dx, dy] = this.layerOffset(part, frame);
    const x = layer.x + dx;
    const y = layer.y + dy;
    return { x0: x, y0: y, x1: x + layer.canvas.width, y1: y + layer.canvas.height };
  }

  /** Composes `part`'s layer, placed for `frame`, over `words`, within `clip`. */
  private composeLayer(words: Uint32Array, part: AvatarPart, frame: FrameState, clip: Box): void {
    const layer = this.layerOf(part, frame);
    if (!layer) return;
    const [dx, dy] = this.layerOffset(part, frame);
    layer.spans ??= new SpanLayer(layer.canvas.data(), layer.canvas.width, layer.canvas.height);
    layer.spans.drawOver(words, this.width, this.height, { x: layer.x + dx, y: layer.y + dy }, clip);
  }

  /**
   * The face over `words`. Above the jaw line (the whole face while the eyes blink or glance) it is
   * composed from the layers of the skin, nose and cheeks, brows and open eyes; from there down, the
   * parts are drawn on the face canvas, the jaw and mouth as vectors, and composed from its pixels.
   * `box` is the frame's {@link faceBox}; the layers are composed within `clip`, which holds it.
   */
  private composeFace(words: Uint32Array, frame: FrameState, box: Box, clip: Box, drawn: FaceCanvas | undefined | null): FaceCanvas | undefined | null {
    const jawOnly = this.eyesFromLayer(frame.pose);
    const top = Math.max(box.y0, Math.min(box.y1, jawOnly ? this.jawRow(frame.pose) : box.y0));
    const above = { ...clip, y1: Math.min(clip.y1, top) };
    for (const part of FACE_PARTS) if (part !== 'mouth') this.composeLayer(words, part, frame, above);
    if (box.y1 <= top || clip.y1 <= top) return drawn;
    const face = drawn === null ? this.drawFace(frame, box, top, jawOnly) : drawn;
    if (face) drawPixelsOver(words, this.width, this.height, face.pixels, face.width, face.height, { x: box.x0, y: top }, clip);
    return face;
  }

  /**
   * Draws the face of `frame` from row `top` of `box` down on the face canvas (the jaw and mouth, or the whole
   * face) and returns its pixels; none when that part of the box is empty.
   */
  private drawFace(frame: FrameState, box: Box, top: number, jawOnly: boolean): FaceCanvas | undefined {
    const w = box.x1 - box.x0;
    const h = box.y1 - top;
    if (h <= 0 || w <= 0) return undefined;
    const slot = jawOnly ? 0 : 1;
    let face = this.faces[slot];
    if (!face || face.width < w || face.height < h) {
      face = this.faces[slot] = createCanvas(Math.max(w, face?.width ?? 0), Math.max(h, face?.height ?? 0));
    }
    // Read back every frame: without `willReadFrequently` each read after drawing cost about 1 ms (the canvas
    // flushes and copies its surface), several times the drawing itself; with it the pixels are identical.
    const fctx = face.getContext('2d', { willReadFrequently: true });
    fctx.setTransform(1, 0, 0, 1, 0, 0);
    fctx.clearRect(0, 0, face.width, face.height);
    for (const part of FACE_PARTS) this.drawPart(fctx, part, frame, box.x0, top, face);
    fctx.setTransform(1, 0, 0, 1, 0, 0);
    const pixels = face.data();
    const count = face.width * face.height;
    const source = pixels.byteOffset % 4 === 0 ? new Uint32Array(pixels.buffer, pixels.byteOffset, count) : new Uint32Array(new Uint8Array(pixels).buffer);
    return { pixels: source, width: face.width, height: Math.min(face.height, h) };
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
    const step = Math.round(exact.headTilt / this.tiltStep);
    const pose = { ...exact, headTilt: step * this.tiltStep };
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
   * Draws one part of `frame` into `ctx` (a canvas of `area`'s size), whose pixel (0, 0) is frame pixel (`sx`, `sy`):
   * from its layer where it has one that fits, else as vectors. A layer placed wholly outside the canvas is not drawn
   * (the face canvas lies below the brows and eyes most of the time; drawing a canvas's layer costs even there).
   */
  private drawPart(ctx: Ctx, part: AvatarPart, frame: FrameState, sx: number, sy: number, area: Size): void {
    const { pose, mouth, raise } = frame;
    const layer = this.layerOf(part, frame);
    // Brows only move up with the mouth; eyes have a layer open and looking ahead; the skin's
    // layer has the jaw closed (see drawHeadSkin).
    const fromLayer =
      part === 'brows' ? Number.isFinite(raise)
      : part === 'eyes' ? this.eyesFromLayer(pose)
      : part === 'headSkin' || STATIC_PARTS.includes(part);
    if (layer && part === 'headSkin') {
      this.drawHeadSkin(ctx, layer, frame, sx, sy, area);
    } else if (layer && fromLayer) {
      const [dx, dy] = this.layerOffset(part, frame);
      if (!overlaps(layer.x + dx - sx, layer.y + dy - sy, layer.canvas.width, layer.canvas.height, area)) return;
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
  private drawHeadSkin(ctx: Ctx, layer: Layer, frame: FrameState, sx: number, sy: number, area: Size): void {
    const { geometry } = this;
    const { pose, mouth } = frame;
    const [dx, dy] = this.layerOffset('headSkin', frame);
    const x = layer.x + dx;
    const top = layer.y + dy;
    const { width, height } = layer.canvas;
    const repaint = mouthGeometry(mouth, geometry.look, geometry.l).jawDrop * this.scale >= JAW_REPAINT_PX;
    const rows = repaint ? Math.max(0, Math.min(height, this.jawRow(pose) - top)) : height;
    ctx.setTransform(1, 0, 0, 1, -sx, -sy);
    if (rows > 0 && overlaps(x - sx, top - sy, width, rows, area)) ctx.drawImage(layer.canvas, 0, 0, width, rows, x, top, width, rows);
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

/** A canvas's size in pixels. */
interface Size {
  width: number;
  height: number;
}

/** Whether the `width × height` rectangle at (`x`, `y`) covers any pixel of a canvas of `area`'s size. */
function overlaps(x: number, y: number, width: number, height: number, area: Size): boolean {
  return x < area.width && y < area.height && x + width > 0 && y + height > 0;
}

/** The smallest rectangle holding `a` and `b`. */
function union(a: Box, b: Box): Box {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

/** The frame {@link FrameRenderer} keeps between calls: its pixels, the placement key of its layers, and where its face and avatar lie. */
interface KeptFrame {
  words: Uint32Array;
  /** The placement of the head's layers (offset and tilt step), and of the body's. */
  headKey: string;
  bodyKey: string;
  face: Box;
  /** Where the head's parts and the body lie (see {@link FrameRenderer.headBox}). */
  head: Box;
  body: Box | undefined;
  /** Its {@link FrameRenderer.movingBoxes}. */
  moving: Box[];
}

/** The face drawn for one frame: the face canvas's pixels (premultiplied words) and how many of them are used. */
interface FaceCanvas {
  pixels: Uint32Array;
  width: number;
  height: number;
}

/** `boxes` with every two that overlap replaced by their union, until none do. */
function disjoint(boxes: Box[]): Box[] {
  const out = [...boxes];
  for (let i = 0; i < out.length; i++) {
    for (let j = i + 1; j < out.length; j++) {
      const a = out[i]!;
      const b = out[j]!;
      if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1) {
        out[i] = union(a, b);
        out.splice(j, 1);
        j = i; // the union may now overlap a box already passed
      }
    }
  }
  return out;
}
