/**
 * The whole detection of one photo: decode it upright, find every face's mesh, and turn each into the 68 iBUG
 * landmarks in the photo's own pixels, largest face first. CPU-bound: it runs in a child process (see
 * face-worker.ts) unless the package was bundled into one file.
 */
import { faceLandmarksSchema, type FaceLandmarks } from '../../domain/avatar/face-landmarks.js';
import type { FaceDetection } from '../../domain/avatar/photo.js';
import { decodePhoto } from './decode-photo.js';
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

/** Every face in the photo at `imagePath`, largest first (see the module comment). */
export async function detectFaces(imagePath: string, signal?: AbortSignal): Promise<FaceDetection> {
  const photo = await decodePhoto(imagePath, DETECTION_MAX_SIDE);
  signal?.throwIfAborted();
  const meshes = await findFaceMeshes(photo.pixels, photo.scaledWidth, photo.scaledHeight);
  const faces = meshes
    .filter((face) => face.faceScore >= MIN_FACE_SCORE)
    .map((face) => landmarksOf(face, photo.scale, photo.width, photo.height))
    .sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  return { imageWidth: photo.width, imageHeight: photo.height, faces };
}

/** One mesh as {@link FaceLandmarks} in the full-size photo; the box bounds the 68 points (brows to chin). */
function landmarksOf(face: MeshFace, scale: number, imageWidth: number, imageHeight: number): FaceLandmarks {
  const points = meshToIbug68(face.mesh, 1 / scale);
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return faceLandmarksSchema.parse({
    imageWidth,
    imageHeight,
    box: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y },
    points,
    score: Math.min(1, Math.max(0, face.score)),
    model: FACE_MESH_MODEL,
  });
}
