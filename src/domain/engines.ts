import type { JobProgress } from './job.js';
import type { AvatarDefinition } from './avatar/definition.js';
import type { FrameSize } from './frame-size.js';

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
