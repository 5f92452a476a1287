/**
 * The 68 iBUG-300W landmarks ({@link FaceLandmarks}) from the 468 points of MediaPipe Face Mesh.
 *
 * Each iBUG point is one mesh vertex or the mean of two, following the published correspondence of
 * Peizhi Yan's "Mediapipe_2_Dlib_Landmarks" (github.com/PeizhiYan/Mediapipe_2_Dlib_Landmarks,
 * mp2dlib.py): MediaPipe's "right" is the subject's right, i.e. the image's left, as in iBUG.
 */
import type { FacePoint } from '../../domain/avatar/face-landmarks.js';

/** Mesh vertex indices behind each of the 68 iBUG points, in iBUG order (one or two, averaged). */
export const MESH_TO_IBUG68: readonly (readonly number[])[] = [
  // 0–16 jaw, image left to right
  [127], [234], [93], [132, 58], [58, 172], [136], [150], [176], [152], [400], [379], [365], [397, 288], [361], [323], [454], [356],
  // 17–21 brow on the image left, 22–26 brow on the image right
  [70], [63], [105], [66], [107],
  [336], [296], [334], [293], [300],
  // 27–30 nose bridge, top to tip; 31–35 nostrils, image left to right
  [168, 6], [197, 195], [5], [4],
  [75], [97], [2], [326], [305],
  // 36–41 eye on the image left (outer corner, upper lid, inner corner, lower lid), 42–47 eye on the image right
  // (inner corner, upper lid, outer corner, lower lid): clockwise in the image, as in iBUG
  [33], [160], [158], [133], [153], [144],
  [362], [385], [387], [263], [373], [380],
  // 48–59 outer lip contour, clockwise from the image-left corner
  [61], [39], [37], [0], [267], [269], [291], [321], [314], [17], [84], [91],
  // 60–67 inner lip contour, clockwise from the image-left corner
  [78], [82], [13], [312], [308], [317], [14], [87],
];

/** Number of vertices of the MediaPipe Face Mesh (without the 10 iris points some variants append). */
export const MESH_VERTEX_COUNT = 468;

/**
 * The 68 iBUG points of one face mesh, each scaled by `scale` (mesh coordinates → image pixels).
 * @throws RangeError when the mesh has fewer than {@link MESH_VERTEX_COUNT} points.
 */
export function meshToIbug68(mesh: ArrayLike<ArrayLike<number>>, scale = 1): FacePoint[] {
  if (mesh.length < MESH_VERTEX_COUNT) throw new RangeError(`a face mesh has ${MESH_VERTEX_COUNT} points, got ${mesh.length}`);
  return MESH_TO_IBUG68.map((indices) => {
    let x = 0;
    let y = 0;
    for (const index of indices) {
      x += mesh[index][0];
      y += mesh[index][1];
    }
    return [(x / indices.length) * scale, (y / indices.length) * scale] satisfies FacePoint;
  });
}
