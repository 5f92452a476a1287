/**
 * The whole detection of one photo: decode it upright, find every face's mesh, and turn each into the 68 iBUG
 * landmarks in the photo's own pixels, largest face first. A small face is looked at a second time, upscaled (see
 * {@link lookAgain}). CPU-bound: it runs in a child process (see face-worker.ts) unless the package was bundled into
 * one file.
 */
import { faceLandmarksSchema, type FaceLandmarks, type FacePoint } from '../../domain/avatar/face-landmarks.js';
import { MIN_FACE_HEIGHT_PX, type FaceDetection } from '../../domain/avatar/photo.js';
import { decodePhoto, type DecodedPhoto } from './decode-photo.js';
import { FACE_MESH_MODEL, findFaceMeshes, type MeshFace } from './human-face-mesh.js';
import { meshToIbug68 } from './mesh-to-ibug68.js';

/**
 * Photos are scaled down to this longer side before detection: faces big enough to animate stay far larger
 * than the 192-pixel crop the mesh model sees, and the time and memory of a run stay bounded.
 */
export const DETECTION_MAX_SIDE = 1024;

/**
 * Faces whose mesh confidence is below this are dropped. Measured: frontal portraits and the drawn avatars score
 * 0.97–1; what is not a person's face, or not one to animate, scored at most 0.62 (a baboon; a patch of the
 * astronaut photo 0.45; a rocket 0.21; a head in full profile 0.55).
 */
export const MIN_FACE_SCORE = 0.7;

/**
 * The height (brows to chin) a small face is brought to for its second look: the mesh model reads a 192-pixel crop
 * around the face, so the face then fills it from pixels scaled up with good filtering, not by the model's own
 * bilinear crop.
 */
export const SECOND_LOOK_FACE_PX = 192;

/** The second look's square spans this many times the face's longer box side (the detector needs some context). */
const SECOND_LOOK_CONTEXT = 3;

/** At most this many of the largest faces are looked at again (the largest is the one animated). */
const SECOND_LOOKS = 3;

/** Every face in the photo at `imagePath`, largest first (see the module comment). */
export async function detectFaces(imagePath: string, signal?: AbortSignal): Promise<FaceDetection> {
  const photo = await decodePhoto(imagePath, DETECTION_MAX_SIDE);
  signal?.throwIfAborted();
  const meshes = await findFaceMeshes(photo.pixels, photo.scaledWidth, photo.scaledHeight);
  const faces = meshes
    .filter((face) => face.faceScore >= MIN_FACE_SCORE)
    .map((face) => landmarksOf(face, photo, (x, y) => [x / photo.scale, y / photo.scale]))
    .sort(largestFirst);
  // Small as the model saw it (in the scaled pixels): a large photo scaled down is looked at again from its full size.
  if (faces[0] && faces[0].box.height * photo.scale < MIN_FACE_HEIGHT_PX) {
    for (let i = 0; i < Math.min(SECOND_LOOKS, faces.length); i++) {
      signal?.throwIfAborted();
      faces[i] = await lookAgain(photo, faces[i]!);
    }
    faces.sort(largestFirst);
  }
  return { imageWidth: photo.width, imageHeight: photo.height, faces };
}

const largestFirst = (a: FaceLandmarks, b: FaceLandmarks) => b.box.width * b.box.height - a.box.width * a.box.height;

/**
 * The second look at a small face: the square around it, drawn from the full-size photo so that the face is
 * {@link SECOND_LOOK_FACE_PX} high, is searched again and the face found there (the one nearest the first look's nose
 * tip) gives the landmarks, mapped back to the photo. Measured on 28 faces of real photos scaled down to 24–96 px
 * high: its points are as close to those found on the full-size faces at 40 px as at 96 (median 0.030 of the eye
 * corners' distance), where the first look's drift from 0.026 at 96 px to 0.042 at 40 px and 0.071 at 24 px.
 * `landmarkSpread` says how far the two looks' points lie apart: 1 when the second look finds no face there.
 */
async function lookAgain(photo: DecodedPhoto, first: FaceLandmarks): Promise<FaceLandmarks> {
  const side = Math.max(first.box.width, first.box.height) * SECOND_LOOK_CONTEXT;
  const size = Math.round((side * SECOND_LOOK_FACE_PX) / first.box.height);
  const x = first.box.x + first.box.width / 2 - side / 2;
  const y = first.box.y + first.box.height / 2 - side / 2;
  const unit = side / size;
  const found = (await findFaceMeshes(photo.square(x, y, side, size), size, size))
    .filter((face) => face.faceScore >= MIN_FACE_SCORE)
    .map((face) => landmarksOf(face, photo, (px, py) => [x + px * unit, y + py * unit]));
  const nose = first.points[30]!;
  const second = found
    .map((face) => ({ face, off: distance(face.points[30]!, nose) }))
    .filter(({ off }) => off < first.box.width / 2)
    .sort((a, b) => a.off - b.off)[0]?.face;
  if (!second) return { ...first, landmarkSpread: 1 };
  return { ...second, landmarkSpread: spread(first.points, second.points) };
}

const distance = (a: FacePoint, b: FacePoint) => Math.hypot(a[0] - b[0], a[1] - b[1]);

/** The mean distance between two sets of the 68 points, over the distance of the outer eye corners (36, 45) of `b`. */
function spread(a: readonly FacePoint[], b: readonly FacePoint[]): number {
  const eyes = distance(b[36]!, b[45]!);
  return a.reduce((sum, point, i) => sum + distance(point, b[i]!), 0) / a.length / eyes;
}

/** One mesh as {@link FaceLandmarks} in the full-size photo (`toPhoto` maps the mesh's pixels); the box bounds the 68 points (brows to chin). */
function landmarksOf(face: MeshFace, photo: DecodedPhoto, toPhoto: (x: number, y: number) => FacePoint): FaceLandmarks {
  const points = meshToIbug68(face.mesh).map(([px, py]) => toPhoto(px, py));
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return faceLandmarksSchema.parse({
    imageWidth: photo.width,
    imageHeight: photo.height,
    box: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y },
    points,
    score: Math.min(1, Math.max(0, face.score)),
    model: FACE_MESH_MODEL,
  });
}
