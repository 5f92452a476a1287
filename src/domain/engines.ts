import type { JobProgress } from './job.js';
import type { AvatarDefinition } from './avatar/definition.js';
import type { FrameSize } from './frame-size.js';
import type { FaceDetection, PhotoFace } from './avatar/photo.js';
import type { VideoFace } from './avatar/video-face.js';
export type { VideoFace } from './avatar/video-face.js';

/** What every engine call receives besides its input. */
export interface EngineContext {
  /** Aborted when the job is forced to `error` (e.g. `dangerousFlag`) or the service closes. */
  signal: AbortSignal;
  /** Reports progress (frames rendered, seconds separated); cheap to call often. */
  onProgress(progress: JobProgress): void;
  /** A private scratch directory, deleted by the caller after the job. */
  workDir: string;
}

/** Input of {@link LipSyncEngine.render}. */
export interface LipSyncInput {
  /** Local path of the speech recording (any format ffmpeg reads). */
  audioPath: string;
  /** Probed duration in seconds. */
  durationSec: number;
  /** The avatar to animate. */
  avatar: AvatarDefinition;
  /** Local path of a background image, when the job has one. */
  backgroundPath?: string;
  /** Where to write the mp4 (H.264 + AAC). */
  outputPath: string;
  /**
   * The video's frame size (even sides); absent: the avatar definition's own size. The avatar is
   * framed for it (head and shoulders centred, scaled to the shorter side) and the backdrop or
   * background image covers the whole frame.
   */
  outputSize?: FrameSize;
  /**
   * Set for a photo avatar: the portrait to animate. `avatar` then only gives the id, name and
   * fps; the photo covers the frame and only the face moves.
   */
  photo?: PhotoFace;
  /**
   * Set for a video avatar: its prepared clip, face and mouth atlas. `avatar` then only gives the id and name; the
   * video plays the clip from its first frame (looping it while the speech lasts) at `video.fps`, at its own size
   * or `outputSize` (scaled to cover and centre-cropped), with only the lower face redrawn.
   */
  video?: VideoFace;
}

/** Turns speech plus an avatar into an mp4 whose mouth follows the speech. */
export interface LipSyncEngine {
  render(input: LipSyncInput, context: EngineContext): Promise<void>;
}

/** Input of {@link SeparationEngine.separate}. */
export interface SeparationInput {
  /** Local path of the input (mp3, wav, mp4, mov). */
  audioPath: string;
  durationSec: number;
  /** Where to write the speech stem. */
  speechPath: string;
  /** Where to write the ambience stem. */
  ambiencePath: string;
}

/** The files a separation produced. */
export interface SeparationOutput {
  /** MIME type of both stems, e.g. `audio/mpeg` or `audio/wav`. */
  contentType: string;
  /** File extension of both stems without dot, e.g. `mp3`. */
  extension: string;
}

/** Splits a recording into `speech` and `ambience`. */
export interface SeparationEngine {
  separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput>;
}

/** Renders an avatar's catalogue assets (idle-loop mp4, preview image, thumbnail). */
export interface AvatarAssetRenderer {
  renderIdleVideo(avatar: AvatarDefinition, outputPath: string, signal?: AbortSignal): Promise<void>;
  /** PNG preview at the avatar's full size. */
  renderPreview(avatar: AvatarDefinition, outputPath: string): Promise<void>;
  /** Small PNG thumbnail. */
  renderThumbnail(avatar: AvatarDefinition, outputPath: string): Promise<void>;
}

/** Finds faces in an uploaded portrait (landmarks for {@link PhotoFace}). Runs off the event loop. */
export interface FaceDetector {
  /**
   * Faces in the image at `imagePath`, largest first.
   * @throws NotAnImageError when the file is not a decodable JPEG, PNG or WebP image.
   */
  detect(imagePath: string, signal?: AbortSignal): Promise<FaceDetection>;
}

/** Renders a photo avatar's catalogue assets, like {@link AvatarAssetRenderer} does for drawn ones. */
export interface PhotoAvatarAssetRenderer {
  /** The idle clip (blinks, small head motion, mouth closed) as an mp4 at `fps`. */
  renderIdleVideo(face: PhotoFace, fps: number, outputPath: string, signal?: AbortSignal): Promise<void>;
  /** PNG preview (the first idle frame at the default 512×512 framing). */
  renderPreview(face: PhotoFace, outputPath: string): Promise<void>;
  /** Small PNG thumbnail (the built-in renderer's: the face with a margin, cut from the photo). */
  renderThumbnail(face: PhotoFace, outputPath: string): Promise<void>;
}

/** What {@link VideoAvatarPreparer.prepare} wrote. */
export interface PreparedVideoAvatar {
  /** The prepared clip (the idle video), face data and mouth atlas, and the clip's frame rate. */
  face: VideoFace;
  /** PNG preview (the prepared clip's first frame) and thumbnail (the face). */
  previewPath: string;
  thumbnailPath: string;
}

/** Prepares a person's clip as a video avatar (docs/video-avatars.md). Runs off the event loop. */
export interface VideoAvatarPreparer {
  /**
   * Prepares the clip at `clipPath` into the folder `outputDir`; `onProgress` is told how far (frames of the current
   * pass); a clip shorter than `minSeconds` or longer than `maxSeconds` (decoded) is refused.
   * @throws an Error named `VideoAvatarError` whose `code` is one of `VIDEO_AVATAR_ERROR_CODES` when the clip cannot
   *   be a video avatar (the avatar then ends in `error` with that code); any other error is a failure of the machine.
   */
  prepare(
    clipPath: string,
    outputDir: string,
    context: { signal: AbortSignal; onProgress?: (done: number, total: number) => void; minSeconds?: number; maxSeconds?: number },
  ): Promise<PreparedVideoAvatar>;
}
