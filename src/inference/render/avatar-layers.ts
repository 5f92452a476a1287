/**
 * The cached layers of one avatar look at one frame size: parts drawn once into offscreen canvases
 * and then only moved (by whole pixels) per frame. The body never rotates and has one layer; the
 * head's parts have one layer each per step of the head tilt, drawn as the motion reaches it.
 */
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { IdlePose } from '../avatar/idle-motion.js';
import type { MouthShape } from '../lipsync/mouth.js';
import { applyPartTransform, paintPart, PART_ANCHOR, REST_POSE, STATIC_PARTS, type AvatarGeometry, type AvatarPart } from './avatar-painter.js';
import type { Box, SpanLayer } from './compositor.js';
import { headSkinGradient } from './parts/head.js';

/** One cached part: its pixels at frame resolution and the frame pixel where its corner sits at rest. */
export interface Layer {
  canvas: Canvas;
  x: number;
  y: number;
  /** The canvas's size, read once: the canvas's own getters are calls into native code, made several times a frame. */
  width: number;
  height: number;
  /** Its pixels prepared for composition in TypeScript (made on first use). */
  spans?: SpanLayer;
}

/** Pixels kept as premultiplied words (see compositor.ts), and the frame pixel where their corner sits at rest. */
export interface PixelLayer {
  words: Uint32Array;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Parts with cached layers: the look-only ones, brows and eyes at rest (open, looking ahead), and the
 * head's skin with the jaw closed.
 */
const LAYER_PARTS: readonly AvatarPart[] = [...STATIC_PARTS, 'headSkin', 'brows', 'eyes'];

/** Design pixels of motion room around the frame: parts just outside it at rest may move in. */
const MOTION_MARGIN = 24;

/** The mouth the layers are drawn with: they do not read it. */
const RESTING_FOR_LAYERS: MouthShape = { open: 0, width: 0, round: 0, closed: 1, teeth: 0 };

/** Where the design square lies in the frame: its scale and the frame pixel of its origin. */
export interface DesignPlacement {
  width: number;
  height: number;
  scale: number;
  originX: number;
  originY: number;
}

/** The layers of one look at one frame size (see the module comment). */
export class AvatarLayers {
  /** Per cached part, the frame-pixel rectangle its pixels cover at rest (absent: nothing to draw). */
  private readonly restBoxes: Map<AvatarPart, Box | undefined>;
  /** The body's layer (it never rotates); none when the body paints nothing. */
  readonly body: Layer | undefined;
  /** The head's layers per tilt step. */
  private readonly head = new Map<number, Map<AvatarPart, Layer>>();
  /** The skin's paint per tilt step (see {@link skinPaintAt}), and the rows below the skin's layer it covers. */
  private readonly skinPaint = new Map<number, { below: number; layer: PixelLayer }>();

  constructor(
    private readonly geometry: AvatarGeometry,
    private readonly placement: DesignPlacement,
  ) {
    this.restBoxes = new Map(LAYER_PARTS.map((part) => [part, this.paintedBox(part)] as const));
    const box = this.restBoxes.get('body');
    this.body = box && this.renderLayer('body', box, REST_POSE);
  }

  /** The head's layers tilted by `tilt` (radians), drawn on first use and kept under `step`. */
  headAt(step: number, tilt: number): Map<AvatarPart, Layer> {
    let layers = this.head.get(step);
    if (!layers) {
      layers = new Map();
      const pose = { ...REST_POSE, headTilt: tilt };
      const { scale, originX, originY } = this.placement;
      // The pivot in frame pixels: how far the tilt can carry each corner of a layer.
      const px = originX + this.geometry.l.cx * scale;
      const py = originY + this.geometry.pivotY * scale;
      for (const part of LAYER_PARTS) {
        const box = this.restBoxes.get(part);
        if (!box || PART_ANCHOR[part] !== 'head') continue;
        const reach = Math.max(...[box.x0 - px, box.x1 - px].flatMap((x) => [box.y0 - py, box.y1 - py].map((y) => Math.hypot(x, y))));
        const m = Math.ceil(reach * Math.abs(tilt)) + 1;
        layers.set(part, this.renderLayer(part, { x0: box.x0 - m, y0: box.y0 - m, x1: box.x1 + m, y1: box.y1 + m }, pose));
      }
      this.head.set(step, layers);
    }
    return layers;
  }

  /**
   * The head's skin paint (its gradient, see headSkinGradient) tilted by `tilt`, covering the skin's layer of that
   * step and `below` frame pixels under it (room for the dropped jaw), as premultiplied words: the colours of the skin
   * that FrameRenderer fills below the jaw line. Drawn on first use and kept under `step`.
   */
  skinPaintAt(step: number, tilt: number, below: number): PixelLayer | undefined {
    const known = this.skinPaint.get(step);
    if (known && known.below >= below) return known.layer;
    const skin = this.headAt(step, tilt).get('headSkin');
    if (!skin) return undefined;
    const { scale, originX, originY } = this.placement;
    const { width } = skin;
    const height = skin.height + below;
    const canvas = createCanvas(width, height);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(scale, 0, 0, scale, originX - skin.x, originY - skin.y);
    applyPartTransform(ctx, this.geometry, 'head', { ...REST_POSE, headTilt: tilt });
    const { look, l, skinShadow } = this.geometry;
    ctx.fillStyle = headSkinGradient(ctx, look, l, skinShadow);
    // Far past the canvas in the head's space, whatever the tilt: every pixel is painted in full.
    ctx.fillRect(l.cx - 4 * l.rx, l.cy - 4 * l.ry, 8 * l.rx, 8 * l.ry);
    const data = canvas.data();
    const words = new Uint32Array(width * height);
    new Uint8Array(words.buffer).set(data);
    const layer = { words, x: skin.x, y: skin.y, width, height };
    this.skinPaint.set(step, { below, layer });
    return layer;
  }

  /** Paints `part` in `pose` without its offset into a layer covering frame-pixel rectangle `box`. */
  private renderLayer(part: AvatarPart, box: Box, pose: IdlePose): Layer {
    const { scale, originX, originY } = this.placement;
    const canvas = createCanvas(box.x1 - box.x0, box.y1 - box.y0);
    const lctx = canvas.getContext('2d');
    lctx.setTransform(scale, 0, 0, scale, originX - box.x0, originY - box.y0);
    applyPartTransform(lctx, this.geometry, PART_ANCHOR[part], { ...pose, headX: 0, headY: 0, breath: 0 });
    paintPart(lctx, this.geometry, part, pose, RESTING_FOR_LAYERS);
    return { canvas, x: box.x0, y: box.y0, width: canvas.width, height: canvas.height };
  }

  /**
   * The frame-pixel rectangle that `part` covers at rest, whole pixels, with room for the motion
   * near the frame's edges; none when it paints nothing.
   */
  private paintedBox(part: AvatarPart): Box | undefined {
    const { width, height, scale, originX, originY } = this.placement;
    const margin = Math.ceil(MOTION_MARGIN * scale);
    const sw = width + 2 * margin;
    const sh = height + 2 * margin;
    const scratch = createCanvas(sw, sh);
    const sctx = scratch.getContext('2d');
    sctx.setTransform(scale, 0, 0, scale, originX + margin, originY + margin);
    paintPart(sctx, this.geometry, part, REST_POSE, RESTING_FOR_LAYERS);
    const box = opaqueBounds(scratch.data(), sw, sh);
    return box && { x0: box.x0 - margin, y0: box.y0 - margin, x1: box.x1 - margin, y1: box.y1 - margin };
  }
}

/**
 * The layers of the look drawn last on this thread. A renderer of the same look (the next video of
 * the same avatar, whatever its background) reuses them instead of drawing them again: a minute of
 * video visits some 45 tilt steps, and drawing their layers costs about 0.2 s. One look is kept (the
 * layers of a look take some tens of MB); a child process frees them when it ends.
 */
let lastLook: { key: string; layers: AvatarLayers } | undefined;

/** The layers of `geometry`'s look placed as `placement`: the last ones of this thread when they match. */
export function avatarLayers(geometry: AvatarGeometry, placement: DesignPlacement): AvatarLayers {
  const key = JSON.stringify([geometry.look, placement]);
  if (lastLook?.key !== key) lastLook = { key, layers: new AvatarLayers(geometry, placement) };
  return lastLook.layers;
}

/** The smallest rectangle (pixels, end exclusive) holding every pixel with alpha > 0, or none. */
function opaqueBounds(rgba: Uint8Array, width: number, height: number): Box | undefined {
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
