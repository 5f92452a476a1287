import type { IdlePose } from '../avatar/idle-motion.js';
import type { AvatarLook } from '../../domain/avatar/look.js';
import type { MouthShape } from '../lipsync/mouth.js';
import { shade } from './color.js';
import type { Ctx, FaceLayout, ShapeCanvas } from './layout.js';
import { faceLayout } from './layout.js';
import { drawClothingBack, drawClothingFront } from './parts/clothing.js';
import { drawBrows, drawEyes } from './parts/eyes.js';
import { drawBlush, drawGlasses, drawNose } from './parts/face.js';
import { drawHairBack, drawHairFront } from './parts/hair.js';
import { drawEars, drawHead, drawNeck } from './parts/head.js';
import { drawMouth, mouthGeometry } from './parts/mouth.js';

/** The pose without motion: the avatar as the layer cache draws it. */
export const REST_POSE: IdlePose = { blink: 0, breath: 0, headTilt: 0, headX: 0, headY: 0, gazeX: 0, gazeY: 0 };

/**
 * The parts of the avatar, bottom to top, each drawn with either the head's or the body's transform.
 * `static` parts depend on the look only, so they can be drawn once and reused (see the layer cache in
 * frame-renderer.ts); the others change with the mouth or the idle pose (blink, gaze) every frame.
 */
export type AvatarPart = 'hairBack' | 'body' | 'ears' | 'headSkin' | 'faceDetails' | 'brows' | 'eyes' | 'mouth' | 'front';

/** Whether a part moves with the head (tilt, sway) or with the body (breath, a little sway). */
export const PART_ANCHOR: Record<AvatarPart, 'head' | 'body'> = {
  hairBack: 'head',
  body: 'body',
  ears: 'head',
  headSkin: 'head',
  faceDetails: 'head',
  brows: 'head',
  eyes: 'head',
  mouth: 'head',
  front: 'head',
};

/** Parts that depend on the look only. */
export const STATIC_PARTS: readonly AvatarPart[] = ['hairBack', 'body', 'ears', 'faceDetails', 'front'];

/** The painting order. */
export const PART_ORDER: readonly AvatarPart[] = ['hairBack', 'body', 'ears', 'headSkin', 'faceDetails', 'brows', 'eyes', 'mouth', 'front'];

/** How far the brows are raised for `mouth` (design pixels, straight up in the head's frame). */
export function browRaise(mouth: MouthShape): number {
  return 3 * Math.max(0, Math.min(1, mouth.open));
}

/** The look's layout and derived colours, computed once per look. */
export interface AvatarGeometry {
  look: AvatarLook;
  l: FaceLayout;
  skinShadow: string;
  /** The head rotates about this height (design pixels), under the chin. */
  pivotY: number;
}

/** The geometry of `look`. */
export function avatarGeometry(look: AvatarLook): AvatarGeometry {
  const l = faceLayout(look);
  return { look, l, skinShadow: look.skin.shadow ?? shade(look.skin.tone, 0.22), pivotY: l.cy + l.ry * 0.9 };
}

/** Applies the transform of `anchor` for `pose` to `ctx` (on top of its current transform). */
export function applyPartTransform(ctx: Pick<Ctx, 'translate' | 'rotate'>, g: AvatarGeometry, anchor: 'head' | 'body', pose: IdlePose): void {
  if (anchor === 'head') {
    ctx.translate(g.l.cx + pose.headX, g.pivotY + pose.headY - pose.breath * 1.2);
    ctx.rotate(pose.headTilt);
    ctx.translate(-g.l.cx, -g.pivotY);
  } else {
    ctx.translate(pose.headX * 0.2, -pose.breath * 2.6);
  }
}

/**
 * Paints one part in its own (unmoved) design space: the caller has applied the part's transform.
 * `mouth` and `pose` are only read by the parts that change per frame.
 */
export function paintPart(ctx: Ctx, g: AvatarGeometry, part: AvatarPart, pose: IdlePose, mouth: MouthShape): void {
  const { look, l, skinShadow } = g;
  switch (part) {
    case 'hairBack':
      drawHairBack(ctx, look, l);
      break;
    case 'body':
      drawClothingBack(ctx, look, l);
      drawNeck(ctx, look, l, skinShadow);
      drawClothingFront(ctx, look, l);
      break;
    case 'ears':
      drawEars(ctx, look, l, skinShadow);
      break;
    case 'headSkin':
      drawHead(ctx, look, l, mouthGeometry(mouth, look, l).jawDrop, skinShadow);
      break;
    case 'faceDetails':
      // The nose lies well below the eyes and above the mouth, so it can go before them.
      drawBlush(ctx, look, l);
      drawNose(ctx, look, l, skinShadow);
      break;
    case 'brows':
      drawBrows(ctx, look, l, browRaise(mouth));
      break;
    case 'eyes':
      drawEyes(ctx, look, l, pose.blink, pose.gazeX, pose.gazeY);
      break;
    case 'mouth':
      paintMouth(ctx, g, mouth);
      break;
    case 'front':
      drawHairFront(ctx, look, l);
      drawGlasses(ctx, look, l);
      break;
  }
}

/** Paints the mouth for `mouth` in the head's own design space (the caller has applied the head's transform). */
export function paintMouth(ctx: ShapeCanvas, g: AvatarGeometry, mouth: MouthShape): void {
  drawMouth(ctx, g.look, g.l, mouthGeometry(mouth, g.look, g.l), g.skinShadow);
}

/**
 * Paints the whole avatar as vectors in the 512×512 design space (the caller sets the transform):
 * hair behind, body, neck, head and face, hair in front, glasses. Pure drawing; no state.
 */
export function paintAvatar(ctx: Ctx, look: AvatarLook, pose: IdlePose, mouth: MouthShape): void {
  const g = avatarGeometry(look);
  for (const part of PART_ORDER) {
    ctx.save();
    applyPartTransform(ctx, g, PART_ANCHOR[part], pose);
    paintPart(ctx, g, part, pose, mouth);
    ctx.restore();
  }
}
