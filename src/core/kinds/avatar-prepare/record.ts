import type { BlobRef, Job, JobInput } from '../../../domain/job.js';
import type { FaceLandmarks } from '../../../domain/avatar/face-landmarks.js';
import type { PhotoAvatarAssets } from '../../../domain/avatar/photo-avatar.js';

/** Input of an `avatarPrepare` job: what the asset renderer needs, copied from the photo avatar. */
export interface AvatarPrepareInput extends JobInput {
  /** The portrait (owned by the avatar, not by the job). */
  photo: BlobRef;
  landmarks: FaceLandmarks;
  fps: number;
  /** Always 0: the job has no media input to count its time budget from. */
  durationSec: number;
}

/** Makes an avatar's idle clip, preview and thumbnail; its uid is the avatar's. */
export type AvatarPrepareJob = Job<'avatarPrepare', AvatarPrepareInput, PhotoAvatarAssets>;
