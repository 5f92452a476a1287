import { MIN_FACE_HEIGHT_PX, type FaceDetection } from '../../domain/avatar/photo.js';
import { faceLandmarksSchema, type FaceLandmarks } from '../../domain/avatar/face-landmarks.js';
import { ApiError } from '../errors.js';

/**
 * The face a photo avatar animates: the largest one found (by box area, whatever order the detector gave).
 * @throws ApiError 400 `no_face` when there is none, `face_too_small` when its box is lower than {@link MIN_FACE_HEIGHT_PX}.
 */
export function chooseFace(detection: FaceDetection, field: string): FaceLandmarks {
  const largest = [...detection.faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0];
  if (!largest) {
    throw ApiError.badRequest('no_face', 'no face was found in the photo; send a portrait where the face is clearly visible', [
      { field, message: 'no face found' },
    ]);
  }
  const height = Math.round(largest.box.height);
  if (largest.box.height < MIN_FACE_HEIGHT_PX) {
    throw ApiError.badRequest(
      'face_too_small',
      `the face is ${height} px high in the photo; at least ${MIN_FACE_HEIGHT_PX} px (brows to chin) is needed to animate it`,
      [{ field, message: `face ${height} px high; the minimum is ${MIN_FACE_HEIGHT_PX} px` }],
    );
  }
  // A detector is a backend: what it returns is checked like any other input before it is stored.
  return faceLandmarksSchema.parse(largest);
}
