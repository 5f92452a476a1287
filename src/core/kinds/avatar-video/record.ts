import type { BlobRef, Job, JobInput } from '../../../domain/job.js';
import type { FrameSize } from '../../../domain/frame-size.js';

/** Input of an avatar video job after validation and resolution. */
export interface AvatarVideoInput extends JobInput {
  /** The `audioUrl` exactly as submitted. */
  audioUrl: string;
  avatarId: string;
  backgroundUrl?: string;
  dangerousFlag: boolean;
  /** Local copy of the audio (a blob owned by the job). */
  audio: BlobRef;
  /** Local copy of the background image, when given. */
  background?: BlobRef;
  /** Probed audio duration in seconds. */
  durationSec: number;
  /** The requested frame size (`dimension`); absent: the default 512×512. */
  dimension?: FrameSize;
}

/** The files of a completed avatar video job. */
export type AvatarVideoResult = { video: BlobRef };

/** A lip-synced avatar video (POST /v2/2davatar). */
export type AvatarVideoJob = Job<'avatarVideo', AvatarVideoInput, AvatarVideoResult>;
