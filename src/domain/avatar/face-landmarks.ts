import { z } from 'zod';

/**
 * The face of a photo avatar, found once when the avatar is prepared and stored with it.
 *
 * `points` holds 68 landmarks in the iBUG-300W order, in pixels of the uploaded image
 * (x right, y down, origin at the image's top-left corner):
 *
 * | indices | part |
 * |---|---|
 * | 0–16 | jaw line, from the face's right (image left) to its left |
 * | 17–21, 22–26 | eyebrows (image left, image right) |
 * | 27–30 | nose bridge, top to tip; 31–35 nostrils, image left to right |
 * | 36–41, 42–47 | eyes (image left, image right), clockwise from the outer corner |
 * | 48–59 | outer lip contour, clockwise from the image-left mouth corner |
 * | 60–67 | inner lip contour, clockwise from the image-left mouth corner |
 *
 * Whatever model finds the face maps its own points to this set, so the renderer depends on no
 * model. `box` is the face's bounding box; `model` names the model that found it.
 */
export const FACE_LANDMARK_COUNT = 68;

const pointSchema = z.tuple([z.number().finite(), z.number().finite()]);

export const faceLandmarksSchema = z.object({
  /** Width and height of the image the points refer to. */
  imageWidth: z.number().int().positive(),
  imageHeight: z.number().int().positive(),
  box: z.object({
    x: z.number().finite(),
    y: z.number().finite(),
    width: z.number().positive(),
    height: z.number().positive(),
  }),
  points: z.array(pointSchema).length(FACE_LANDMARK_COUNT),
  /** The detector's confidence in [0, 1]. */
  score: z.number().min(0).max(1),
  /** Which model produced the points, e.g. `"human-facemesh@3.x"`. */
  model: z.string().min(1),
  /**
   * How sure the points are, for a face the detector looked at twice (the built-in one does for a face under
   * `MIN_FACE_HEIGHT_PX`: once as found, once upscaled to the size its landmark model works at): the mean distance
   * between the two looks' 68 points over the outer eye corners' distance (0: the same points; 1 when the second
   * look found no face there). Absent when the face was looked at once.
   */
  landmarkSpread: z.number().min(0).optional(),
});

export type FaceLandmarks = z.infer<typeof faceLandmarksSchema>;
export type FacePoint = z.infer<typeof pointSchema>;

/** Index ranges of the 68-point set (start inclusive, end exclusive). */
export const FACE_PARTS = {
  jaw: [0, 17],
  rightBrow: [17, 22],
  leftBrow: [22, 27],
  noseBridge: [27, 31],
  nostrils: [31, 36],
  rightEye: [36, 42],
  leftEye: [42, 48],
  outerLips: [48, 60],
  innerLips: [60, 68],
} as const satisfies Record<string, readonly [number, number]>;
