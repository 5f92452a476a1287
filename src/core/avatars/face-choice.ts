import { MAX_LANDMARK_SPREAD, MIN_FACE_HEIGHT_PX, type FaceDetection } from '../../domain/avatar/photo.js';
import { faceLandmarksSchema, type FaceLandmarks } from '../../domain/avatar/face-landmarks.js';
import { ApiError } from '../errors.js';

/**
 * The face a photo avatar animates (or a video avatar's clip shows): the largest one found (by box area, whatever
 * order the detector gave).
 * @throws ApiError 400 `no_face` when there is none; `face_too_small` when its box is lower than
 * {@link MIN_FACE_HEIGHT_PX} and its landmarks are not sure enough: a `landmarkSpread` over {@link MAX_LANDMARK_SPREAD},
 * or none reported (a detector that does not measure it).
 */
export function chooseFace(detection: FaceDetection, field: string, what: 'photo' | 'clip' = 'photo'): FaceLandmarks {
  const largest = [...detection.faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0];
  const send = what === 'photo' ? 'a portrait' : 'a clip of the person facing the camera';
  if (!largest) {
    throw ApiError.badRequest('no_face', `no face was found in the ${what}; send ${send} where the face is clearly visible`, [
      { field, message: 'no face found' },
    ]);
  }
  const spread = largest.landmarkSpread;
  if (largest.box.height < MIN_FACE_HEIGHT_PX && !(spread !== undefined && spread <= MAX_LANDMARK_SPREAD)) {
    const size = `${Math.round(largest.box.width)}×${Math.round(largest.box.height)} px`;
    const percent = (value: number) => `${+(value * 100).toFixed(1)} %`;
    const why =
      spread === undefined
        ? 'too small to animate'
        : spread >= 1
          ? 'too small to animate (looked at again, upscaled, it was not found)'
          : `too small for its landmarks to be placed reliably (found as it is and upscaled, they lie ${percent(spread)} of the eye distance apart; at most ${percent(MAX_LANDMARK_SPREAD)} is accepted)`;
    throw ApiError.badRequest(
      'face_too_small',
      `the face is ${size} (brows to chin) in the ${what}, ${why}; send ${what === 'photo' ? 'a photo' : 'a clip'} where the face is at least ${MIN_FACE_HEIGHT_PX} px high, e.g. ${what === 'photo' ? 'a closer crop or a larger photo' : 'closer to the camera or at a higher resolution'}`,
      [{ field, message: `face ${size}; send one at least ${MIN_FACE_HEIGHT_PX} px high` }],
    );
  }
  // A detector is a backend: what it returns is checked like any other input before it is stored.
  return faceLandmarksSchema.parse(largest);
}
