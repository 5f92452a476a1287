import { z } from 'zod';

/**
 * A video avatar's prepared face: what the preparation of a clip writes next to the prepared clip and its mouth
 * atlas, and what the renderer reads (docs/video-avatars.md describes the whole asset). All frame numbers are frames
 * of the prepared clip unless named `source…`; all pixels are the prepared clip's.
 */
export const VIDEO_FACE_FORMAT = 'virtual-anchor/video-face@1';

/**
 * Why a clip cannot become a video avatar (an error's `code`): the API's 400 codes for `POST /v2/avatar` with a video,
 * and the `errorReason` codes of a video avatar whose preparation refused its clip.
 */
export const VIDEO_AVATAR_ERROR_CODES = ['not_video', 'too_short', 'too_long', 'no_face', 'face_too_small', 'face_lost'] as const;
export type VideoAvatarErrorCode = (typeof VIDEO_AVATAR_ERROR_CODES)[number];

/** Landmarks are stored as 16-bit integers in units of 1/{@link VIDEO_LANDMARK_SCALE} pixel. */
export const VIDEO_LANDMARK_SCALE = 8;

/** The mouth classes of the lip-sync track (Rhubarb's A–H and X, silence), as the atlas indexes its entries. */
export const VIDEO_VISEMES = ['X', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'] as const;

const count = z.number().int().nonnegative();
const shapeSchema = z.object({
  open: z.number(),
  width: z.number(),
  round: z.number(),
  closed: z.number(),
  press: z.number(),
  teeth: z.number(),
});

/** One mouth of the atlas: a crop of one frame of the clip, its landmarks and what its mouth shows. */
export const atlasEntrySchema = z.object({
  /** Where the crop lies in the atlas image. */
  x: count,
  y: count,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** The frame's 68 points (`x, y` each) in the crop's pixels. */
  points: z.array(z.number()).length(136),
  /** The mouth as the lip-sync track describes it (`MouthShape`'s parameters), measured from the landmarks. */
  shape: shapeSchema,
  /** The class it was chosen for. */
  viseme: z.enum(VIDEO_VISEMES),
  /** Head turn and nod (see `facePose`): entries nearer the frame's pose are preferred. */
  yaw: z.number(),
  pitch: z.number(),
  /** The source frame it was cut from. */
  sourceFrame: count,
});

export const videoFaceSchema = z.object({
  format: z.literal(VIDEO_FACE_FORMAT),
  /** The prepared clip (`clip.mp4`): its size, constant frame rate and frame count. */
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  fps: z.number().int().min(1),
  frames: z.number().int().positive(),
  /** The uploaded clip as decoded: displayed size, rotation applied, frame rate kept, frames decoded. */
  source: z.object({
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    rotation: z.number().int(),
    fps: z.number().positive(),
    frames: z.number().int().positive(),
    /** The prepared clip is the source's frames `startFrame … endFrame − 1` (the loop). */
    startFrame: count,
    endFrame: count,
  }),
  /**
   * The prepared clip is a loop: its last frame is followed by its first. Its last `crossfadeFrames` frames are mixed
   * towards the source frames before `startFrame`, so that the loop's join is the source's own motion.
   */
  loop: z.object({ crossfadeFrames: count, joinDistance: z.number().nonnegative() }),
  /** Per frame of the prepared clip: the 68 points of the face as it shows there (mouth at rest), base64 of Int16 LE. */
  landmarks: z.string(),
  /** Frame ranges `[from, to)` of the prepared clip without a usable face: drawn as they are. */
  lost: z.array(z.tuple([count, count])),
  /**
   * The track's opening is scaled by this for the clip (0.5–1): a person who never opens as wide as the track's
   * widest (AA) shows their own widest mouths for it.
   */
  openScale: z.number().min(0.5).max(1),
  /** The clip's relaxed closed mouth, in eye distances (see `measureMouth`). */
  rest: z.object({ gap: z.number(), width: z.number(), upperLip: z.number(), lowerLip: z.number(), chin: z.number() }),
  atlas: z.object({
    /** The atlas image (`atlas.png`) size. */
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    entries: z.array(atlasEntrySchema).min(1),
  }),
});

export type VideoFaceData = z.infer<typeof videoFaceSchema>;
export type AtlasEntry = z.infer<typeof atlasEntrySchema>;

/** A prepared video avatar as the renderer is given it: local paths of its files, and its frame rate. */
export interface VideoFace {
  /** The prepared clip's frame rate (also in the face data): a job's video and mouth track run at it. */
  fps: number;
  /** The prepared clip (H.264, yuv420p, constant frame rate, no sound), its lower face at rest: a seamless loop. */
  clipPath: string;
  /** The face data (JSON, {@link videoFaceSchema}). */
  facePath: string;
  /** The mouth atlas (PNG). */
  atlasPath: string;
}
