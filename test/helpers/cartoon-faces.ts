/**
 * Portraits drawn by the project's own cartoon renderer, with the landmarks the drawing geometry puts where it
 * does: ground truth for a face detector (eye corners, eye centres, mouth corners, chin).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { lookOf, type AvatarLook } from '../../src/domain/avatar/definition.js';
import type { FacePoint } from '../../src/domain/avatar/face-landmarks.js';
import { loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';
import type { IdlePose } from '../../src/inference/avatar/idle-motion.js';
import type { MouthShape } from '../../src/inference/lipsync/mouth.js';
import { REST_POSE, avatarGeometry, paintAvatar } from '../../src/inference/render/avatar-painter.js';
import { drawBackdrop } from '../../src/inference/render/background.js';
import { DESIGN_SIZE } from '../../src/inference/render/layout.js';
import { eyeSize } from '../../src/inference/render/parts/eyes.js';
import { mouthGeometry } from '../../src/inference/render/parts/mouth.js';

/** A drawn portrait and where its landmarks are, in the PNG's pixels. */
export interface CartoonFace {
  name: string;
  path: string;
  size: number;
  /** Known points by iBUG index: eye corners 36, 39, 42, 45; mouth corners 48, 54; chin 8. */
  points: Map<number, FacePoint>;
  /** Eye centres (image left, image right): the middle of each drawn eye. */
  eyeCentres: [FacePoint, FacePoint];
}

/** How one portrait is drawn. */
export interface CartoonPose {
  /** Head roll in radians. */
  tilt?: number;
  mouth?: MouthShape;
  /** Frame size in pixels (the 512-pixel design is scaled to it). */
  size?: number;
}

const NEUTRAL_MOUTH: MouthShape = { open: 0, width: 0, round: 0, closed: 0.6, teeth: 0 };

/** The built-in avatars' looks, by id. */
export async function cartoonLooks(): Promise<Map<string, AvatarLook>> {
  const definitions = await loadAvatarDefinitions({ builtIn: true });
  return new Map(definitions.map((definition) => [definition.id, lookOf(definition)]));
}

/** Draws `look` in `pose` to a PNG in `dir` and returns it with its known landmarks. */
export async function drawCartoonFace(dir: string, name: string, look: AvatarLook, pose: CartoonPose = {}): Promise<CartoonFace> {
  const size = pose.size ?? 1024;
  const mouth = pose.mouth ?? NEUTRAL_MOUTH;
  const idle: IdlePose = { ...REST_POSE, headTilt: pose.tilt ?? 0 };
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  const s = size / DESIGN_SIZE;
  ctx.scale(s, s);
  drawBackdrop(ctx, look, DESIGN_SIZE, DESIGN_SIZE);
  paintAvatar(ctx, look, idle, mouth);
  const path = join(dir, `${name}.png`);
  await writeFile(path, await canvas.encode('png'));

  // The head's transform (avatar-painter.ts applyPartTransform) and the frame's scale, applied to design points.
  const g = avatarGeometry(look);
  const { l } = g;
  const cos = Math.cos(idle.headTilt);
  const sin = Math.sin(idle.headTilt);
  const place = (x: number, y: number): FacePoint => {
    const dx = x - l.cx;
    const dy = y - g.pivotY;
    return [s * (l.cx + idle.headX + dx * cos - dy * sin), s * (g.pivotY + idle.headY + dx * sin + dy * cos)];
  };
  const { w, h } = eyeSize(look);
  const left = l.cx - l.eyeDx;
  const right = l.cx + l.eyeDx;
  const m = mouthGeometry(mouth, look, l);
  const points = new Map<number, FacePoint>([
    [36, place(left - w, l.eyeY)],
    [39, place(left + w, l.eyeY - h * 0.08)],
    [42, place(right - w, l.eyeY)],
    [45, place(right + w, l.eyeY - h * 0.08)],
    [48, place(l.cx - m.halfWidth, m.cornerY)],
    [54, place(l.cx + m.halfWidth, m.cornerY)],
    [8, place(l.cx, l.cy + l.ry + m.jawDrop)],
  ]);
  return { name, path, size, points, eyeCentres: [place(left, l.eyeY), place(right, l.eyeY)] };
}
