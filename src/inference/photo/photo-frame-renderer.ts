import { readFile } from 'node:fs/promises';
import { createCanvas, type Image } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { FacePoint } from '../../domain/avatar/face-landmarks.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import { idlePoseFor } from '../avatar/idle-motion.js';
import { isRestingMouth, type MouthShape } from '../lipsync/mouth.js';
import { coverCrop } from '../render/background.js';
import { paintEyelids } from './eyelids.js';
import type { FaceMesh } from './face-mesh.js';
import { moveFace, type FaceMotion } from './face-motion.js';
import type { FacePalette } from './face-palette.js';
import { drawMovedMouth, mouthModel, type MouthModel } from './mouth-model.js';
import type { PhotoMouth } from './photo-mouth.js';
import { loadCheckedImage } from '../image/load-image.js';

/** Decodes a photo avatar's photo; a file that does not decode fails with `the avatar's photo could not be decoded: …`. */
export async function loadAvatarPhoto(imagePath: string): Promise<Image> {
  const bytes = await readFile(imagePath);
  return loadCheckedImage(bytes).catch((error: unknown) => {
    throw new Error(`the avatar's photo could not be decoded: ${error instanceof Error ? error.message : String(error)}`);
  });
}

/** Options of {@link PhotoFrameRenderer}. */
export interface PhotoFrameRendererOptions {
  /** Make the idle motion (blinks, head) a seamless loop of this many frames (the idle clip). */
  loopFrames?: number;
}

/** Head rotation per radian of the idle pose's tilt: a photo turns less than a drawn head. */
const TILT_SHARE = 0.5;
/** Head shift in inter-ocular distances per design pixel of the idle pose. */
const SHIFT_PER_DESIGN_PX = 0.012;
/**
 * The head moves as far on screen as a face whose inter-ocular distance is at most this share of the frame's
 * shorter side (a 20-pixel eye distance at 512×512; the head then sways by about a pixel or two): a larger face
 * turns by a smaller angle, so that its edges move no more pixels than a small face's. Resampling a sharp photo
 * moved by a few pixels costs SSIM: without the cap, a close-up (a face box of 369×344 px) fell to 0.66 against its photo in
 * silence and a 190-pixel one to 0.92; with it, 0.96 and 0.99 (test/photo/real-portraits.test.ts).
 */
const MOTION_IOD_SHARE = 0.04;
/** Lip press at which P/B/M closes the photo's lips fully (the track's press is brief and often below 1). */
const FULL_PRESS = 0.5;

/**
 * Draws the frames of a photo avatar: the photo scaled to cover the frame and centred (as a background
 * image is), with only the face animated by warping it with a triangle mesh built from its 68 landmarks:
 * the jaw drops and the lips take each frame's mouth shape, the open mouth shows a painted inside, the
 * eyelids blink and the head moves a little over a still neck and background. Everything that does not
 * depend on the frame (the covered photo, the mesh, the sampled colours) is prepared once; a frame copies
 * the photo and warps the face's triangles into it. Deterministic: the same frames in order give the same
 * pixels.
 *
 * The photo's own mouth is the mouth at rest: in silence, and in every pause, the frame is the photo (its smile,
 * its teeth), moved only with the head. Speech opens it further (the inside takes the photo's own teeth where it
 * shows them, see `paintMouthInterior`), and only P/B/M's lip press closes its lips.
 */
export class PhotoFrameRenderer {
  readonly width: number;
  readonly height: number;
  /** The covered photo, RGBA. */
  readonly base: Uint8Array;
  readonly mesh: FaceMesh;
  readonly palette: FacePalette;
  private readonly moved: Float64Array;
  private readonly open: Float64Array;
  /** The photo's own mouth: its teeth, taken for the open mouth. */
  readonly photoMouth: PhotoMouth;
  private readonly model: MouthModel;
  /** The head motion's scale: 1, or less for a face larger than {@link MOTION_IOD_SHARE} allows. */
  private readonly headMotion: number;

  constructor(
    private readonly definition: AvatarDefinition,
    image: Image,
    landmarks: readonly FacePoint[],
    landmarkSize: { width: number; height: number },
    private readonly options: PhotoFrameRendererOptions = {},
  ) {
    this.width = definition.width;
    this.height = definition.height;
    const canvas = createCanvas(this.width, this.height);
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = 'high';
    const crop = coverCrop(image, this.width, this.height);
    ctx.drawImage(image, crop.sx, crop.sy, crop.sw, crop.sh, 0, 0, this.width, this.height);
    this.base = new Uint8Array(canvas.data());
    // Landmarks are in the pixels of the image as the detector decoded it: map them onto the covered frame.
    const scale = this.width / crop.sw;
    const fx = image.width / landmarkSize.width;
    const fy = image.height / landmarkSize.height;
    const points = landmarks.map(([x, y]) => [(x * fx - crop.sx) * scale, (y * fy - crop.sy) * scale] as FacePoint);
    const { width, height, base } = this;
    this.model = mouthModel(base, width, height, points);
    ({ mesh: this.mesh, palette: this.palette, photoMouth: this.photoMouth } = this.model);
    this.headMotion = Math.min(1, (MOTION_IOD_SHARE * Math.min(this.width, this.height)) / this.mesh.axes.iod);
    this.moved = new Float64Array(this.mesh.count * 2);
    this.open = new Float64Array(this.mesh.count * 2);
  }

  /** A renderer for `face` at `definition`'s frame size. */
  static async create(definition: AvatarDefinition, face: PhotoFace, options: PhotoFrameRendererOptions = {}): Promise<PhotoFrameRenderer> {
    const image = await loadAvatarPhoto(face.imagePath);
    const { landmarks } = face;
    return new PhotoFrameRenderer(definition, image, landmarks.points, { width: landmarks.imageWidth, height: landmarks.imageHeight }, options);
  }

  /** Draws frame `frameIndex` with `mouth` into `target` (`width × height × 4` RGBA bytes, opaque). */
  renderInto(frameIndex: number, mouth: MouthShape, target: Uint8Array): void {
    const { width, height, mesh, base } = this;
    const motion = this.motionAt(frameIndex, mouth);
    target.set(base);
    drawMovedMouth(this.model, base, target, width, height, motion, this.moved);
    if (motion.blink >= 0.05) {
      moveFace(mesh, { ...motion, blink: 0 }, this.open);
      paintEyelids(target, width, height, this.open, this.moved, this.palette.lids, motion.blink, mesh.axes.iod);
    }
  }

  /** Draws frame `frameIndex` into a fresh buffer. */
  render(frameIndex: number, mouth: MouthShape): Uint8Array {
    const pixels = new Uint8Array(this.width * this.height * 4);
    this.renderInto(frameIndex, mouth, pixels);
    return pixels;
  }

  /** The face's motion in frame `frameIndex`: the idle pose's blink and head motion, and the mouth. */
  motionAt(frameIndex: number, mouth: MouthShape): FaceMotion {
    const pose = idlePoseFor(this.definition, frameIndex, this.options.loopFrames);
    const shift = SHIFT_PER_DESIGN_PX * this.mesh.axes.iod * this.headMotion;
    return {
      open: mouth.open,
      width: mouth.width,
      round: mouth.round,
      closed: lipClosure(mouth),
      teeth: mouth.teeth,
      blink: pose.blink,
      rotation: pose.headTilt * TILT_SHARE * this.headMotion,
      shiftX: pose.headX * shift,
      shiftY: pose.headY * shift,
    };
  }
}

/**
 * How far `mouth` closes the photo's own lips (0: as photographed, 1: pressed together). The resting mouth's
 * `closed` (relaxed lips, silence) is the photo's mouth as it is; only P/B/M's `press` closes it. A track without
 * `press` (an analyzer written before it) closes the lips wherever the mouth is not at rest.
 */
export function lipClosure(mouth: MouthShape): number {
  const press = mouth.press ?? (isRestingMouth(mouth) ? 0 : 1);
  return mouth.closed * Math.min(1, press / FULL_PRESS);
}
