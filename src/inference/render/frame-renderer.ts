import { readFile } from 'node:fs/promises';
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { lookOf } from '../../domain/avatar/definition.js';
import { idlePoseFor, type IdlePose } from '../avatar/idle-motion.js';
import { MOUTH_KEYS, type MouthShape } from '../lipsync/mouth.js';
import {
  applyPartTransform,
  avatarGeometry,
  browRaise,
  paintAvatar,
  paintMouth,
  paintPart,
  PART_ANCHOR,
  PART_ORDER,
  STATIC_PARTS,
  type AvatarGeometry,
  type AvatarPart,
} from './avatar-painter.js';
import { drawBackdrop, drawCover } from './background.js';
import { eyesBounds } from './parts/eyes.js';
import { headOutline, jawTop } from './parts/head.js';
import { MAX_JAW_DROP, mouthBounds, mouthGeometry } from './parts/mouth.js';
import { copyWords, drawPixelsOver, fillCovered, SpanLayer, type Box, type CoveredFill } from './compositor.js';
import { disjoint, sameBox, union } from './boxes.js';
import { avatarLayers, type AvatarLayers, type Layer } from './avatar-layers.js';
import { Affine } from './raster/affine.js';
import { PathCoverage } from './raster/path-coverage.js';
import { PixelPainter } from './raster/pixel-painter.js';
import { changedBoxes, type RowSpans } from './raster/span-changes.js';
import { rgbaToYuv420 } from './yuv420.js';
import { bytesOf, wordsOf } from './rgba-words.js';
import { YuvConversion } from './yuv420-wasm.js';
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
  /** The tilt step the head's layers are drawn at (the pose's tilt is this many steps). */
  step: number;
  mouth: MouthShape;
  headLayers: Map<AvatarPart, Layer>;
  raise: number;
  /** Each part's layer offset, once asked for (see FrameRenderer.layerOffset). */
  offsets: Map<AvatarPart, [number, number]>;
}

/**
 * The face: the parts {@link FrameRenderer.renderInto} composes each frame for the mouth and the eyes (in this order,
 * consecutive in the painting order; see composeFace); the others come from their layers alone.
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
 * (lazily, as the motion reaches it) and the whole head, vectors included, tilts in these steps. A frame where the
 * head's layers change recomposes the whole head (a frame where only the mouth moves, its edges), so these steps
 * set much of the drawing's cost. One pixel at the crown, as the head's own motion moves in whole pixels (the tilt
 * is then at most half a pixel off there, less below): 0.0046–0.0052 rad at 512×512 for the built-in avatars,
 * 0.0022–0.0024 at 1920×1080. Over 20 s the head's layers then change (tilted or moved) on 13–19 % of the frames at
 * 512×512, 20–26 % at 1280×720 and 28–38 % at 1920×1080, against 22–30 %, 31–40 % and 43–56 % with half a pixel.
 */
const TILT_STEP_PX = 1;

/**
 * Draws the frames of one avatar into one reusable canvas. The background is composed once at
 * construction; each frame repaints only the avatar on top of it, from cached layers and vectors.
 */
export class FrameRenderer {
  readonly width: number;
  readonly height: number;
  /** {@link canvas}, once asked for. */
  private frameCanvas: { canvas: Canvas; ctx: Ctx } | undefined;
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
   * The small canvas the blinking or glancing eyes are drawn on by {@link renderInto} (see drawPartPixels), made at
   * their first frame. It grows to the largest size it was needed at; the whole of it is cleared and read back.
   */
  private eyesCanvas: PartCanvas | undefined;
  /** What the mouth is painted with, in TypeScript (see paintMouthPixels); made at the first mouth. */
  private mouthPainter: PixelPainter | undefined;
  /** What {@link drawPartPixels} drew last for each part, and what it was drawn for. */
  private readonly lastParts = new Map<'eyes' | 'mouth', { key: string; placed: PlacedPixels }>();
  /** The head's outline, recorded and filled below the jaw line each frame (see drawFaceParts). */
  private outline: PathCoverage | undefined;
  /** The last frame composed with cached layers (see {@link composeKept}). */
  private kept: KeptFrame | undefined;
  /**
   * The last frame in yuv420p, the box of {@link kept} it has not caught up with, and how a box of it is converted
   * again (only its 2×2 blocks that changed since they were last converted; see {@link renderYuv420Into}).
   */
  private yuv: { bytes: Uint8Array; stale: Box[]; convert: (box: Box) => void } | undefined;
  /**
   * The WebAssembly memory the kept frame and its yuv420p conversion live in, for yuv420p frames (see
   * {@link renderYuv420Into}); handed back by {@link close} for the next renderer of this size.
   */
  private conversion: YuvConversion | undefined;

  constructor(
    private readonly definition: AvatarDefinition,
    options: FrameRendererOptions = {},
  ) {
    this.width = definition.width;
    this.height = definition.height;
    this.geometry = avatarGeometry(lookOf(definition));
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
      if (this.backdrop) this.backdropWords = wordsOf(this.backdrop.data());
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

  /**
   * The canvas {@link draw} draws into (frame size), made when first asked for: with cached layers and a backdrop,
   * {@link renderInto} and {@link renderYuv420Into} compose without it.
   */
  get canvas(): Canvas {
    return this.frameContext().canvas;
  }

  /** {@link canvas} and its context, made at the first call. */
  private frameContext(): { canvas: Canvas; ctx: Ctx } {
    if (!this.frameCanvas) {
      const canvas = createCanvas(this.width, this.height);
      this.frameCanvas = { canvas, ctx: canvas.getContext('2d') };
    }
    return this.frameCanvas;
  }

  /**
   * Frees what this renderer keeps between frames: its yuv420p memory goes back to a pool for the next renderer of
   * this size on this thread (a process drawing video after video then writes into pages it has touched before). The
   * renderer may still draw afterwards: it then starts again from a whole frame.
   */
  close(): void {
    this.conversion?.release();
    this.conversion = undefined;
    this.kept = undefined;
    this.yuv = undefined;
  }

  /** The idle pose of frame `frameIndex`. */
  poseAt(frameIndex: number): IdlePose {
    return idlePoseFor(this.definition, frameIndex, this.loopFrames);
  }

  /** Draws frame `frameIndex` with `mouth` into {@link canvas}. */
  draw(frameIndex: number, mouth: MouthShape): void {
    const { ctx } = this.frameContext();
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
      for (const part of PART_ORDER) this.drawPart(ctx, part, frame);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
  }

  /**
   * Draws frame `frameIndex` with `mouth` into `target` (`width × height × 4` bytes, premultiplied
   * RGBA as {@link render} returns them; a slot of shared memory, say). With cached layers and a
   * backdrop (not `transparent`), the layers are composed in TypeScript (see {@link composeKept}), the
   * skin below the jaw line is filled there too, the mouth is painted in TypeScript (raster/pixel-painter.ts), and only
   * the eyes while they blink or glance are drawn on a small canvas and read back: no full-frame buffer is allocated.
   * Otherwise it draws into {@link canvas} and copies its pixels. The result equals {@link draw}'s up to rounding (±1)
   * and the anti-aliasing of the jaw's and the mouth's edges (here exact; the canvas's is a few levels off).
   */
  renderInto(frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    const { width, height } = this;
    if (target.byteLength !== width * height * 4) throw new RangeError(`target has ${target.byteLength} bytes, expected ${width * height * 4}`);
    const kept = this.composeKept(frameIndex, mouth);
    if (kept) target.set(bytesOf(kept));
    else target.set(this.frameContext().canvas.data());
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
    const own = this.yuv420Frame(frameIndex, mouth);
    if (own) target.set(own);
    else rgbaToYuv420(wordsOf(this.frameContext().canvas.data()), width, height, target, { x0: 0, y0: 0, x1: width, y1: height });
  }

  /**
   * Draws frame `frameIndex` with `mouth` in `format` into memory this renderer keeps, and returns that memory: the
   * bytes {@link renderFormatInto} would copy into a buffer of the caller's. They stay valid and unchanged until this
   * renderer draws again or is closed, so a caller that writes them into a pipe waits for the write before the next
   * frame (the copy into a caller's buffer, 1.4 MB a 1280×720 frame in yuv420p, into memory the encoder's threads
   * have since pushed out of the caches, took 6–8 % of the frame child's time inside lip-sync jobs). None, and nothing
   * drawn, when this renderer keeps no frame (no cached layers, or `transparent`): then draw into a buffer of yours
   * with {@link renderFormatInto}.
   */
  drawFormat(format: RawVideoFormat, frameIndex: number, mouth: MouthShape): Uint8Array | undefined {
    if (!this.layers || !this.backdropWords) return undefined;
    if (format === 'yuv420p') return this.yuv420Frame(frameIndex, mouth);
    const kept = this.composeKept(frameIndex, mouth);
    return kept && bytesOf(kept);
  }

  /**
   * Composes frame `frameIndex` into the kept frame and converts what changed into the kept yuv420p frame, which it
   * returns; none, with the frame drawn into {@link canvas} instead, when there are no cached layers or no backdrop.
   */
  private yuv420Frame(frameIndex: number, mouth: MouthShape): Uint8Array | undefined {
    const { width, height } = this;
    // Before the first frame: the kept frame is then composed in the conversion's memory (see yuvFrames).
    if (!this.yuv && !this.kept && this.layers && this.backdropWords) this.conversion ??= YuvConversion.create(width, height);
    if (!this.composeKept(frameIndex, mouth)) return undefined;
    const yuv = (this.yuv ??= this.yuvFrames());
    for (const box of yuv.stale) yuv.convert(box);
    yuv.stale.length = 0;
    return yuv.bytes;
  }

  /**
   * The yuv420p state of {@link renderYuv420Into}, set up at its first frame: in WebAssembly memory, the kept frame
   * there (composed there from the start, or moved there), when the compiled conversion loads (see yuv420-wasm.ts);
   * in TypeScript otherwise. The first conversion is of the whole frame: every block that differs from what the
   * memory last converted (zeros when new) is converted.
   */
  private yuvFrames(): NonNullable<FrameRenderer['yuv']> {
    const { width, height } = this;
    const kept = this.kept!;
    const stale = [{ x0: 0, y0: 0, x1: width, y1: height }];
    const wasm = (this.conversion ??= YuvConversion.create(width, height));
    if (wasm) {
      if (kept.words !== wasm.words) wasm.words.set(kept.words);
      kept.words = wasm.words;
      return { bytes: wasm.bytes, stale, convert: (box) => wasm.convert(box) };
    }
    const bytes = new Uint8Array(yuv420Bytes(width, height));
    // The pixels `bytes` is the conversion of.
    const from = new Uint32Array(width * height);
    return { bytes, stale, convert: (box) => rgbaToYuv420(kept.words, width, height, bytes, box, from) };
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
    // The jaw's skin, the mouth and the eyes are drawn first: where they lie tells what changed.
    const drawing = this.drawFaceParts(frame, face);
    const moving = this.movingParts(frame, drawing);
    let dirty: Box[] = [];
    if (!this.kept) {
      dirty = [{ x0: 0, y0: 0, x1: width, y1: height }];
      this.kept = { words: this.conversion?.words ?? new Uint32Array(width * height), headKey, bodyKey, head, body, moving };
    } else {
      const last = this.kept;
      if (last.headKey !== headKey) {
        // The head moved or tilted: all of it, where it was and where it is now.
        dirty.push(union(last.head, head));
      } else {
        // Only what moves with the mouth and the eyes, where it was and where it is now.
        dirty.push(...this.changedParts(last.moving, moving));
      }
      if (last.bodyKey !== bodyKey) {
        if (last.body) dirty.push(last.body);
        if (body) dirty.push(body);
      }
      Object.assign(last, { headKey, bodyKey, head, body, moving });
    }
    // Even edges (each chroma sample of yuv420p covers 2×2 pixels), within the frame; boxes that overlap made disjoint.
    dirty = disjoint(
      dirty.map((box) => ({
        x0: Math.max(0, box.x0 & ~1),
        y0: Math.max(0, box.y0 & ~1),
        x1: Math.min(width, box.x1 + (box.x1 & 1)),
        y1: Math.min(height, box.y1 + (box.y1 & 1)),
      })),
    ).filter((box) => box.x0 < box.x1 && box.y0 < box.y1);
    const { words } = this.kept;
    for (const clip of dirty) {
      for (let y = clip.y0; y < clip.y1; y++) {
        const row = y * width;
        copyWords(words, row + clip.x0, this.backdropWords, row + clip.x0, clip.x1 - clip.x0);
      }
      for (const part of UNDER_FACE) this.composeLayer(words, part, frame, clip);
      this.composeFace(words, frame, drawing, clip);
      for (const part of OVER_FACE) this.composeLayer(words, part, frame, clip);
      if (this.yuv) this.yuv.stale.push(clip);
    }
    return words;
  }

  /**
   * Where the parts of `frame` that change with the mouth and the eyes lie while the head stays put (see
   * {@link changedParts}): the skin below the jaw line (its rows' spans), the mouth, the brows (raised with the open
   * mouth) and, while they blink or glance, the eyes (their layer's rectangle and that of the eyes drawn).
   */
  private movingParts(frame: FrameState, drawing: FaceDrawing): MovingParts {
    const { jaw, mouth, eyes } = drawing;
    const { geometry } = this;
    const eyesBox = eyes && union(eyes.box, this.partBox('eyes', frame) ?? eyes.box);
    return {
      jaw: jaw && { box: jaw.box, y0: jaw.box.y0, spans: jaw.spans.slice(0, 4 * (jaw.box.y1 - jaw.box.y0)) },
      mouth: mouth?.box,
      mouthKey: mouth?.key,
      eyesKey: eyes?.key,
      brows: this.partBox('brows', frame),
      eyes: eyesBox ?? (this.eyesFromLayer(frame.pose) ? undefined : this.coveredBox(frame.pose, eyesBounds(geometry.look, geometry.l))),
    };
  }

  /**
   * The rectangles where a frame whose head lies where the last frame's did differs from it: the skin's edge where
   * the jaw's outline moved (in strips of rows, see span-changes.ts), and the mouth, brows and drawn eyes where they
   * were and where they are, each only when it shows something else than in the last frame or lies elsewhere.
   */
  private changedParts(last: MovingParts, now: MovingParts): Box[] {
    const boxes: Box[] = [];
    const both = (a: Box | undefined, b: Box | undefined) => {
      const box = a && b ? union(a, b) : (a ?? b);
      if (box) boxes.push(box);
    };
    if (last.jaw && now.jaw) {
      // Strips of about 8 design pixels, whole chroma rows.
      const strip = 2 * Math.max(4, Math.round(4 * this.scale));
      boxes.push(...changedBoxes(last.jaw, now.jaw, strip));
    } else {
      both(last.jaw?.box, now.jaw?.box);
    }
    // The mouth and the drawn eyes where they show something else than in the last frame (the head lies where it
    // did, so equal keys mean equal pixels in the same place).
    if (last.mouthKey === undefined || last.mouthKey !== now.mouthKey) both(last.mouth, now.mouth);
    // The brows' layer moves by whole pixels: where it lies as in the last frame, its pixels are the last frame's.
    if (!sameBox(last.brows, now.brows)) both(last.brows, now.brows);
    if (last.eyesKey === undefined || last.eyesKey !== now.eyesKey) both(last.eyes, now.eyes);
    return boxes;
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
    return { x0: x, y0: y, x1: x + layer.width, y1: y + layer.height };
  }

  /** Composes `part`'s layer, placed for `frame`, over `words`, within `clip`. */
  private composeLayer(words: Uint32Array, part: AvatarPart, frame: FrameState, clip: Box): void {
    const layer = this.layerOf(part, frame);
    if (!layer) return;
    const [dx, dy] = this.layerOffset(part, frame);
    layer.spans ??= new SpanLayer(layer.canvas.data(), layer.width, layer.height);
    layer.spans.drawOver(words, this.width, this.height, { x: layer.x + dx, y: layer.y + dy }, clip);
  }

  /**
   * The face over `words`, within `clip`, in the painting order: the skin from its layer (above the jaw line only:
   * from there down it is filled, see {@link drawFaceParts}), the nose and cheeks and the brows from their layers,
   * the eyes from their layer (open, looking ahead) or as drawn for the frame, and the mouth as drawn for the frame
   * (`face`, drawn once a frame and composed within each of its boxes).
   */
  private composeFace(words: Uint32Array, frame: FrameState, face: FaceDrawing, clip: Box): void {
    const { width, height } = this;
    if (face.jaw) {
      this.composeLayer(words, 'headSkin', frame, { ...clip, y1: Math.min(clip.y1, face.jaw.box.y0) });
      fillCovered(words, width, face.jaw, clip);
    } else {
      this.composeLayer(words, 'headSkin', frame, clip);
    }
    this.composeLayer(words, 'faceDetails', frame, clip);
    this.composeLayer(words, 'brows', frame, clip);
    if (face.eyes) drawPlacedOver(words, width, height, face.eyes, clip);
    else this.composeLayer(words, 'eyes', frame, clip);
    if (face.mouth) drawPlacedOver(words, width, height, face.mouth, clip);
  }

  /**
   * What {@link composeFace} draws once a frame: the skin from the jaw line down to the bottom of the face `box`,
   * filled here: the head's outline for the frame's jaw (path-coverage.ts: exact anti-aliased coverage) coloured
   * from the skin's paint at the frame's tilt (the skin's layer has the jaw closed, and its edge is the canvas's
   * anti-aliasing: the fill is used even with the jaw closed, so that the edge stays the same from frame to frame);
   * the eyes while they blink or glance; and the mouth. The eyes are drawn on a small canvas and read back, the mouth
   * painted in TypeScript into pixels of its own, both transparent around the part (composing them over the layers is
   * the same as drawing them over the layers, up to rounding and anti-aliasing).
   */
  private drawFaceParts(frame: FrameState, box: Box): FaceDrawing {
    const { geometry, width, height } = this;
    const { pose, mouth } = frame;
    const shape = mouthGeometry(mouth, geometry.look, geometry.l);
    const drawing: FaceDrawing = {};
    const skin = frame.headLayers.get('headSkin');
    const top = Math.max(box.y0, Math.min(box.y1, this.jawRow(pose)));
    const outline = (this.outline ??= new PathCoverage());
    outline.beginPath();
    this.designTransform(outline, 0, 0);
    applyPartTransform(outline, geometry, 'head', pose);
    headOutline(outline, geometry.look, geometry.l, shape.jawDrop);
    // From the jaw line down, within the face box and the frame, where the outline reaches.
    const reach = outline.bounds() ?? box;
    const area = {
      x0: Math.max(0, box.x0, reach.x0),
      y0: Math.max(0, top),
      x1: Math.min(width, box.x1, reach.x1),
      y1: Math.min(height, box.y1, reach.y1),
    };
    if (skin && area.x0 < area.x1 && area.y0 < area.y1) {
      const [dx, dy] = this.layerOffset('headSkin', frame);
      // Room for the jaw at its lowest (the face box's), so that the paint is drawn once per tilt step.
      const below = Math.max(0, Math.min(height, box.y1) - (skin.y + dy + skin.height));
      const paint = this.layers?.skinPaintAt(frame.step, pose.headTilt, below);
      if (paint) {
        const coverage = outline.coverage(area);
        drawing.jaw = { coverage, spans: outline.rowSpans(), box: area, paint, x: paint.x + dx, y: paint.y + dy };
      }
    }
    if (!this.eyesFromLayer(pose)) drawing.eyes = this.drawPartPixels('eyes', frame, eyesBounds(geometry.look, geometry.l));
    drawing.mouth = this.drawPartPixels('mouth', frame, mouthBounds(geometry.l, shape));
    return drawing;
  }

  /**
   * `part` of `frame` drawn as vectors on its own canvas, which covers the frame pixels of `bounds` (design pixels in
   * the head's space, holding all that the part paints), and read back: its pixels and where they go; none when
   * they lie outside the frame.
   */
  private drawPartPixels(part: 'eyes' | 'mouth', frame: FrameState, bounds: Box): PlacedPixels | undefined {
    const { x0, y0, x1, y1 } = this.coveredBox(frame.pose, bounds);
    const w = x1 - x0;
    const h = y1 - y0;
    if (w <= 0 || h <= 0) return undefined;
    // The same part in the same tilt step, placed the same way on the head (which moves by whole pixels): the same
    // pixels as last time, wherever the head is now.
    const { pose, mouth } = frame;
    const [hx, hy] = this.layerOffset('headSkin', frame);
    const state = part === 'eyes' ? [pose.blink, pose.gazeX, pose.gazeY] : MOUTH_KEYS.map((key) => mouth[key] ?? 0);
    const key = `${state.join(' ')} ${frame.step} ${x0 - hx} ${y0 - hy} ${w} ${h}`;
    const last = this.lastParts.get(part);
    if (last?.key === key) return { ...last.placed, x: x0, y: y0, box: { x0, y0, x1, y1 } };
    const { pixels, width } = part === 'mouth' ? this.paintMouthPixels(frame, x0, y0, w, h) : this.eyesPixels(frame, x0, y0, w, h);
    const placed = { pixels, width, height: h, x: x0, y: y0, box: { x0, y0, x1, y1 }, key };
    this.lastParts.set(part, { key, placed });
    return placed;
  }

  /**
   * The mouth of `frame` painted in TypeScript (raster/pixel-painter.ts) into the painter's own pixels, `w × h` with
   * frame pixel (`x0`, `y0`) at their corner: the same drawing calls as on a canvas, without the canvas's recording,
   * replay and fresh buffer per frame (a 1280×720 frame's mouth: 0.18 against 0.26 ms in process; inside jobs the frame
   * child's CPU fell 2–4 %, see docs/performance.md). The pixels are valid until the next mouth is painted.
   */
  private paintMouthPixels(frame: FrameState, x0: number, y0: number, w: number, h: number): { pixels: Uint32Array; width: number } {
    const painter = (this.mouthPainter ??= new PixelPainter());
    painter.reset(w, h);
    this.designTransform(painter, x0, y0);
    applyPartTransform(painter, this.geometry, 'head', frame.pose);
    paintMouth(painter, this.geometry, frame.mouth);
    return { pixels: painter.pixels, width: w };
  }

  /**
   * The eyes of `frame` drawn on their canvas, which grows to the largest size it was needed at (its `w × h` corner
   * covers them, frame pixel (`x0`, `y0`) at the canvas's corner), and read back: a fresh buffer, the whole canvas.
   */
  private eyesPixels(frame: FrameState, x0: number, y0: number, w: number, h: number): { pixels: Uint32Array; width: number } {
    let drawn = this.eyesCanvas;
    if (!drawn || drawn.width < w || drawn.height < h) {
      const canvas = createCanvas(Math.max(w, drawn?.width ?? 0), Math.max(h, drawn?.height ?? 0));
      // Read back every frame: without `willReadFrequently` each read after drawing cost about 1 ms (the canvas
      // flushes and copies its surface), several times the drawing itself; with it the pixels are identical.
      drawn = { canvas, ctx: canvas.getContext('2d', { willReadFrequently: true }), width: canvas.width, height: canvas.height };
      this.eyesCanvas = drawn;
    }
    const { canvas, ctx } = drawn;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, drawn.width, drawn.height);
    this.designTransform(ctx, x0, y0);
    applyPartTransform(ctx, this.geometry, 'head', frame.pose);
    paintPart(ctx, this.geometry, 'eyes', frame.pose, frame.mouth);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    return { pixels: wordsOf(canvas.data()), width: drawn.width };
  }

  /**
   * The frame pixels (whole, one more on each side for anti-aliasing, within the frame) that design rectangle
   * `bounds` of the head covers in `pose`, under the transform the head's parts are painted with (the design
   * transform, then applyPartTransform's).
   */
  private coveredBox(pose: IdlePose, bounds: Box): Box {
    const head = new Affine();
    this.designTransform(head, 0, 0);
    applyPartTransform(head, this.geometry, 'head', pose);
    const corners = [head.apply(bounds.x0, bounds.y0), head.apply(bounds.x1, bounds.y0), head.apply(bounds.x0, bounds.y1), head.apply(bounds.x1, bounds.y1)];
    const xs = corners.map(([x]) => x);
    const ys = corners.map(([, y]) => y);
    return {
      x0: Math.max(0, Math.floor(Math.min(...xs)) - 1),
      y0: Math.max(0, Math.floor(Math.min(...ys)) - 1),
      x1: Math.min(this.width, Math.ceil(Math.max(...xs)) + 1),
      y1: Math.min(this.height, Math.ceil(Math.max(...ys)) + 1),
    };
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
      box.x1 = Math.max(box.x1, layer.x + dx + layer.width);
      box.y1 = Math.max(box.y1, layer.y + dy + layer.height);
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
    return { pose, step, mouth, headLayers: this.layers.headAt(step, pose.headTilt), raise: browRaise(mouth), offsets: new Map() };
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
    let offset = frame.offsets.get(part);
    if (!offset) {
      offset = this.placeLayer(part, frame);
      frame.offsets.set(part, offset);
    }
    return offset;
  }

  /** {@link layerOffset}, computed. */
  private placeLayer(part: AvatarPart, frame: FrameState): [number, number] {
    const { pose, raise } = frame;
    let [dx, dy] = PART_ANCHOR[part] === 'head' ? [pose.headX, pose.headY - pose.breath * 1.2] : [pose.headX * 0.2, -pose.breath * 2.6];
    if (part === 'brows') {
      // Straight up in the tilted head.
      dx += raise * Math.sin(pose.headTilt);
      dy -= raise * Math.cos(pose.headTilt);
    }
    return [Math.round(dx * this.scale), Math.round(dy * this.scale)];
  }

  /** Draws one part of `frame` into `ctx` (a canvas of the frame's size): from its layer where it has one that fits, else as vectors. */
  private drawPart(ctx: Ctx, part: AvatarPart, frame: FrameState): void {
    const { pose, mouth, raise } = frame;
    const layer = this.layerOf(part, frame);
    // Brows only move up with the mouth; eyes have a layer open and looking ahead; the skin's
    // layer has the jaw closed (see drawHeadSkin).
    const fromLayer =
      part === 'brows' ? Number.isFinite(raise)
      : part === 'eyes' ? this.eyesFromLayer(pose)
      : part === 'headSkin' || STATIC_PARTS.includes(part);
    if (layer && part === 'headSkin') {
      this.drawHeadSkin(ctx, layer, frame);
    } else if (layer && fromLayer) {
      const [dx, dy] = this.layerOffset(part, frame);
      ctx.setTransform(1, 0, 0, 1, dx, dy);
      ctx.drawImage(layer.canvas, layer.x, layer.y);
    } else if (!fromLayer) {
      this.designTransform(ctx, 0, 0);
      applyPartTransform(ctx, this.geometry, PART_ANCHOR[part], pose);
      paintPart(ctx, this.geometry, part, pose, mouth);
    }
  }

  /**
   * The head's skin from its layer (jaw closed), except that with the jaw dropped the rows from the
   * jaw line down are painted for this frame's mouth instead: the outline above that line does not
   * depend on the jaw, and painting a part of the head is cheaper than all of it.
   */
  private drawHeadSkin(ctx: Ctx, layer: Layer, frame: FrameState): void {
    const { geometry } = this;
    const { pose, mouth } = frame;
    const [dx, dy] = this.layerOffset('headSkin', frame);
    const x = layer.x + dx;
    const top = layer.y + dy;
    const { width, height } = layer;
    const repaint = mouthGeometry(mouth, geometry.look, geometry.l).jawDrop * this.scale >= JAW_REPAINT_PX;
    const rows = repaint ? Math.max(0, Math.min(height, this.jawRow(pose) - top)) : height;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (rows > 0) ctx.drawImage(layer.canvas, 0, 0, width, rows, x, top, width, rows);
    if (!repaint) return;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, top + rows, this.width, this.height - top - rows);
    ctx.clip();
    this.designTransform(ctx, 0, 0);
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
    return this.frameContext().canvas.encode('png');
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
  private designTransform(ctx: { setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void }, sx: number, sy: number): void {
    ctx.setTransform(this.scale, 0, 0, this.scale, this.originX - sx, this.originY - sy);
  }
}

/** The canvas the eyes are drawn on (see FrameRenderer.drawPartPixels), its context and size, read once. */
interface PartCanvas {
  canvas: Canvas;
  ctx: Ctx;
  width: number;
  height: number;
}

/** The frame {@link FrameRenderer} keeps between calls: its pixels, the placement key of its layers, and where its avatar and moving parts lie. */
interface KeptFrame {
  words: Uint32Array;
  /** The placement of the head's layers (offset and tilt step), and of the body's. */
  headKey: string;
  bodyKey: string;
  /** Where the head's parts and the body lie (see {@link FrameRenderer.headBox}). */
  head: Box;
  body: Box | undefined;
  /** Its {@link FrameRenderer.movingParts}. */
  moving: MovingParts;
}

/**
 * Pixels drawn for one frame (premultiplied words, `width` a row, `height` rows used), the frame pixel of their
 * corner, and the frame rectangle that holds what was drawn.
 */
interface PlacedPixels {
  pixels: Uint32Array;
  width: number;
  height: number;
  x: number;
  y: number;
  box: Box;
  /** What they show (the part's state, tilt step and placement on the head): equal keys, equal pixels. */
  key: string;
}

/** Where the parts that change with the mouth and the eyes lie in one frame (see FrameRenderer.movingParts). */
interface MovingParts {
  /** The skin filled below the jaw line: its box and the spans of its rows (see PathCoverage.rowSpans). */
  jaw: (RowSpans & { box: Box }) | undefined;
  mouth: Box | undefined;
  brows: Box | undefined;
  /** While the eyes are drawn (blinking or glancing). */
  eyes: Box | undefined;
  /** What the mouth and the drawn eyes show (see PlacedPixels.key). */
  mouthKey: string | undefined;
  eyesKey: string | undefined;
}

/** Composes `placed` over `words` (a `width × height` frame) within `clip`. */
function drawPlacedOver(words: Uint32Array, width: number, height: number, placed: PlacedPixels, clip: Box): void {
  drawPixelsOver(words, width, height, placed.pixels, placed.width, placed.height, { x: placed.x, y: placed.y }, clip);
}

/** What {@link FrameRenderer.composeFace} draws once a frame: the skin below the jaw line, the eyes (when they blink or glance), the mouth. */
interface FaceDrawing {
  jaw?: CoveredFill;
  eyes?: PlacedPixels;
  mouth?: PlacedPixels;
}
