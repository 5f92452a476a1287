import type { IdlePose } from '../avatar/idle-motion.js';
import type { AvatarLook } from '../avatar/look.js';
import type { MouthShape } from '../lipsync/mouth.js';
import { shade } from './color.js';
import type { Ctx } from './layout.js';
import { faceLayout } from './layout.js';
import { drawClothingBack, drawClothingFront } from './parts/clothing.js';
import { drawBrows, drawEyes } from './parts/eyes.js';
import { drawBlush, drawGlasses, drawNose } from './parts/face.js';
import { drawHairBack, drawHairFront } from './parts/hair.js';
import { drawEars, drawHead, drawNeck } from './parts/head.js';
import { drawMouth, mouthGeometry } from './parts/mouth.js';

/**
 * Paints the whole avatar in the 512×512 design space (the caller sets the transform):
 * hair behind, body, neck, head and face, hair in front, glasses. Pure drawing; no state.
 */
export function paintAvatar(ctx: Ctx, look: AvatarLook, pose: IdlePose, mouth: MouthShape): void {
  const l = faceLayout(look);
  const skinShadow = look.skin.shadow ?? shade(look.skin.tone, 0.22);
  const mouthGeo = mouthGeometry(mouth, look, l);
  const pivotY = l.cy + l.ry * 0.9;

  const withHead = (paint: () => void) => {
    ctx.save();
    ctx.translate(l.cx + pose.headX, pivotY + pose.headY - pose.breath * 1.2);
    ctx.rotate(pose.headTilt);
    ctx.translate(-l.cx, -pivotY);
    paint();
    ctx.restore();
  };
  const withBody = (paint: () => void) => {
    ctx.save();
    ctx.translate(pose.headX * 0.2, -pose.breath * 2.6);
    paint();
    ctx.restore();
  };

  withHead(() => drawHairBack(ctx, look, l));
  withBody(() => {
    drawClothingBack(ctx, look, l);
    drawNeck(ctx, look, l, skinShadow);
    drawClothingFront(ctx, look, l);
  });
  withHead(() => {
    drawEars(ctx, look, l, skinShadow);
    drawHead(ctx, look, l, mouthGeo.jawDrop, skinShadow);
    drawBlush(ctx, look, l);
    drawBrows(ctx, look, l, 3 * Math.max(0, Math.min(1, mouth.open)));
    drawEyes(ctx, look, l, pose.blink, pose.gazeX, pose.gazeY);
    drawNose(ctx, look, l, skinShadow);
    drawMouth(ctx, look, l, mouthGeo, skinShadow);
    drawHairFront(ctx, look, l);
    drawGlasses(ctx, look, l);
  });
}
