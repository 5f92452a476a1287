import { join } from 'node:path';
import type { FaceLandmarks } from '../../src/domain/avatar/face-landmarks.js';
import type { PhotoFace } from '../../src/domain/avatar/photo.js';
import { detectFaces } from '../../src/inference/face/detect-faces.js';
import { boxCentre, cropPortrait, dlibPhoto, type DlibFace } from '../helpers/dlib-faces.js';

/** The frame size the real portraits are cut to and drawn at. */
export const PORTRAIT_SIZE = { width: 512, height: 512 } as const;

/** A person in one of Debian's libdlib19.1 photos: the photo and the face's box in it. */
export interface Portrait {
  what: string;
  file: string;
  box: DlibFace['box'];
}

/** The real portraits the photo tests and contact sheets use, by what they show. */
export const PORTRAITS = {
  bald: { what: 'darker skin, beard, bald, smiling with teeth (collage)', file: 'bald_guys.jpg', box: { x: 1459, y: 142, width: 270, height: 270 } },
  smiling: { what: 'head turned a little, smiling with teeth', file: 'Tom_Cruise_avp_2014_4.jpg', box: { x: 91, y: 325, width: 408, height: 408 } },
  glasses: { what: 'glasses', file: '2008_002506.jpg', box: { x: 329, y: 78, width: 109, height: 109 } },
  goatee: { what: 'goatee, dark room', file: '2008_002506.jpg', box: { x: 125, y: 65, width: 90, height: 91 } },
  clenched: { what: 'teeth clenched, blurred', file: '2008_002506.jpg', box: { x: 224, y: 95, width: 91, height: 91 } },
  moustache: { what: 'older, moustache, grey hair', file: '2008_001322.jpg', box: { x: 344, y: 155, width: 90, height: 90 } },
  child: { what: 'child, glasses, laughing, mouth open', file: '2008_001009.jpg', box: { x: 145, y: 79, width: 76, height: 76 } },
  closed: { what: 'mouth closed', file: '2008_001322.jpg', box: { x: 104, y: 162, width: 76, height: 76 } },
  closedDim: { what: 'mouth closed, dim, blurred', file: '2009_004587.jpg', box: { x: 154, y: 46, width: 75, height: 76 } },
} as const satisfies Record<string, Portrait>;

/** Grace Hopper's portrait (test/fixtures/faces: US Navy, public domain), to upload as it is. */
export const HOPPER = new URL('../fixtures/faces/grace_hopper.jpg', import.meta.url).pathname;

/** The detected face nearest the crop's centre (the person it was cut around). */
export function centralFace(faces: readonly FaceLandmarks[]): FaceLandmarks {
  const mid = PORTRAIT_SIZE.width / 2;
  const off = (face: FaceLandmarks) => Math.hypot(boxCentre(face.box)[0] - mid, boxCentre(face.box)[1] - mid);
  const face = [...faces].sort((a, b) => off(a) - off(b))[0];
  if (!face) throw new Error('no face was found in the portrait');
  return face;
}

/**
 * `portrait` as a user would upload it (cut from its photo around the face, 512×512 JPEG written to `path`), with the
 * landmarks the built-in detector finds in it.
 */
export async function portraitFace(portrait: Portrait, path: string): Promise<PhotoFace> {
  const imagePath = await cropPortrait(dlibPhoto(portrait.file), portrait.box, path);
  return { imagePath, landmarks: centralFace((await detectFaces(imagePath)).faces) };
}

/** A photo uploaded as it is (`path`), with the landmarks of its largest face. */
export async function uploadedFace(path: string): Promise<PhotoFace> {
  const [landmarks] = (await detectFaces(path)).faces;
  if (!landmarks) throw new Error(`no face was found in ${path}`);
  return { imagePath: path, landmarks };
}

/** Where a portrait of `portraits` is written in `dir`. */
export const portraitPath = (dir: string, n: number): string => join(dir, `portrait-${n}.jpg`);
