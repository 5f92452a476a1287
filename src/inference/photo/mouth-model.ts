/**
 * A portrait's mouth as the photo renderer moves and draws it, shared by the photo avatars and by the video avatars'
 * drawn mouths (a neutral frame of a clip opened for a shape the clip lacks): the face mesh (with the inner lips put
 * on the lips' real edge when the mouth shows its teeth), the colours, the portrait's own mouth; and one drawing of
 * it moved (the warp, the inside between the moved lips, the seam of lips closed over teeth).
 */
import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import { buildFaceMesh, type FaceMesh } from './face-mesh.js';
import { moveFace, type FaceMotion } from './face-motion.js';
import { samplePalette, type FacePalette } from './face-palette.js';
import { fitInnerLips } from './inner-lips.js';
import { paintLipSeam } from './lip-seam.js';
import { warpMesh } from './mesh-warp.js';
import { paintMouthInterior } from './mouth-interior.js';
import { readPhotoMouth, type PhotoMouth } from './photo-mouth.js';
import { toothTest } from './tooth-test.js';

/** See the module comment. */
export interface MouthModel {
  mesh: FaceMesh;
  palette: FacePalette;
  /** The portrait's own mouth: its teeth, taken for the open mouth. */
  photoMouth: PhotoMouth;
}

/** The mouth model of the portrait `pixels` (RGBA, `width × height`) whose 68 landmarks are `points` (its pixels). */
export function mouthModel(pixels: Uint8Array, width: number, height: number, points: readonly FacePoint[]): MouthModel {
  const detected = buildFaceMesh(points, width, height);
  const lip = samplePalette(pixels, width, height, detected.rest, detected.axes).lip;
  // A portrait that shows its teeth: its inner lip points go onto the lips' real edge (see fitInnerLips).
  const teeth = toothTest(pixels, width, height, detected.rest, lip);
  const fitted = teeth && fitInnerLips(pixels, width, height, points, teeth);
  const mesh = fitted ? buildFaceMesh(fitted.points, width, height, fitted.between) : detected;
  const palette = samplePalette(pixels, width, height, mesh.rest, mesh.axes, teeth?.teeth);
  const photoMouth = readPhotoMouth(pixels, width, height, mesh.rest, { upper: mesh.innerUpper, lower: mesh.innerLower }, teeth);
  return { mesh, palette, photoMouth };
}

/**
 * Draws the portrait `source` into `target` (both `width × height` RGBA; `target` holding the portrait already) with
 * its face moved by `motion`: the mesh warp, and where the mouth opens or closes its inside and lip seam. `moved`
 * receives the moved mesh points. `palette` overrides the model's colours.
 */
export function drawMovedMouth(model: MouthModel, source: Uint8Array, target: Uint8Array, width: number, height: number, motion: FaceMotion, moved: Float64Array, palette = model.palette): void {
  const { mesh, photoMouth } = model;
  moveFace(mesh, motion, moved);
  warpMesh(source, target, width, height, mesh.triangles, mesh.rest, moved);
  // At rest the warp already holds the portrait's own inside; an opening or closing mouth gets its inside drawn.
  if (motion.open > 0 || motion.closed > 0 || motion.teeth > 0) {
    paintMouthInterior(target, width, height, {
      points: moved,
      mouthWidth: mesh.axes.mouthWidth,
      palette,
      teeth: motion.teeth,
      alpha: 1,
      upper: mesh.innerUpper,
      lower: mesh.innerLower,
      photo: photoMouth,
    });
  }
  const { test } = photoMouth;
  if (test && motion.closed > 0) {
    paintLipSeam(target, width, height, { points: moved, upper: mesh.innerUpper, lower: mesh.innerLower, mouthWidth: mesh.axes.mouthWidth, closed: motion.closed, test, lip: palette.lip });
  }
}
