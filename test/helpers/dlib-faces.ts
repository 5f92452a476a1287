/**
 * Real photos of people from Debian's `libdlib19.1` package (dlib's examples: PASCAL VOC 2011 photos and two
 * portraits of actors), read where the package installs them. They are not copied into this repository; `.ci/run`
 * installs the package, and a test that needs them fails (never skips) with the install command when it is missing.
 *
 * Two of dlib's example files list 68 iBUG-300W landmarks for 43 faces in nine of the VOC photos. They are the output
 * of dlib's own landmark model (`shape_predictor_68_face_landmarks.dat`, as the files' comment says), not hand marks:
 * an independent second model to compare ours with.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { FaceLandmarks, FacePoint } from '../../src/domain/avatar/face-landmarks.js';

/** Where Debian's libdlib19.1 puts dlib's example faces. */
export const DLIB_FACES_DIR = '/usr/share/doc/libdlib19.1/examples/faces';

/** The path of one of dlib's example photos; throws, naming the package, when it is not installed. */
export function dlibPhoto(name: string): string {
  const path = join(DLIB_FACES_DIR, name);
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: these tests read real photos from Debian's libdlib19.1 (apt-get install libdlib19.1; .ci/run installs it). ` +
        'If the package is installed, dpkg may be set to leave out /usr/share/doc (a path-exclude in /etc/dpkg/dpkg.cfg.d/, as in slim images): allow /usr/share/doc/libdlib19.1 and reinstall it.',
    );
  }
  return path;
}

/** One face that dlib's example files annotate: its box and its 68 points, in the photo's pixels. */
export interface DlibFace {
  file: string;
  box: FaceLandmarks['box'];
  points: FacePoint[];
}

/** The distance of two points, in pixels. */
export const distance = (a: FacePoint, b: FacePoint): number => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** The centre of a face box. */
export const boxCentre = (box: FaceLandmarks['box']): FacePoint => [box.x + box.width / 2, box.y + box.height / 2];

/** Every annotated face of dlib's `training_with_face_landmarks.xml` and `testing_with_face_landmarks.xml`. */
export function dlibAnnotatedFaces(): DlibFace[] {
  const faces: DlibFace[] = [];
  for (const list of ['training_with_face_landmarks.xml', 'testing_with_face_landmarks.xml']) {
    const xml = readFileSync(dlibPhoto(list), 'latin1');
    for (const image of xml.split('<image ').slice(1)) {
      const file = /file='([^']+)'/.exec(image)![1]!;
      for (const box of image.split('<box ').slice(1)) {
        const attribute = (name: string) => Number(new RegExp(`\\b${name}='(-?\\d+)'`).exec(box)![1]);
        const points = [...box.matchAll(/<part name='\d+' x='(-?\d+)' y='(-?\d+)'\/>/g)].map((m) => [Number(m[1]), Number(m[2])] as FacePoint);
        if (points.length !== 68) throw new Error(`${list}: a face of ${file} has ${points.length} points, not 68`);
        faces.push({ file, box: { x: attribute('left'), y: attribute('top'), width: attribute('width'), height: attribute('height') }, points });
      }
    }
  }
  return faces;
}

/**
 * A square crop of a photo around a face (`scale` × the face box's larger side, centred on the box, clamped to the
 * photo), resized to `size`×`size` and written as a JPEG: the kind of portrait a user would upload of that person.
 */
export async function cropPortrait(photo: string, box: DlibFace['box'], out: string, size = 512, scale = 2.6): Promise<string> {
  const image = await loadImage(photo);
  const side = Math.min(Math.round(Math.max(box.width, box.height) * scale), image.width, image.height);
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const x = Math.round(Math.min(Math.max(cx - side / 2, 0), image.width - side));
  const y = Math.round(Math.min(Math.max(cy - side / 2, 0), image.height - side));
  const canvas = createCanvas(size, size);
  canvas.getContext('2d').drawImage(image, x, y, side, side, 0, 0, size, size);
  writeFileSync(out, await canvas.encode('jpeg', 92));
  return out;
}
