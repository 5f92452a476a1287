import type { JobFailure } from '../../domain/job.js';
import type { PhotoAvatarAssets, PhotoAvatarStatus } from '../../domain/avatar/photo-avatar.js';
import { isFinal } from '../../domain/state-machine.js';
import type { AvatarPrepareJob } from '../kinds/avatar-prepare/record.js';

/** An avatar's state, read from its `avatarPrepare` job: the one owner of it. */
export interface AvatarState {
  /** `thumbnailGenerationStatus`: `pending` while the job is `pending` or `ongoing` (or not stored yet). */
  status: PhotoAvatarStatus;
  /** Set once `completed`. */
  assets?: PhotoAvatarAssets;
  /** Set once `error`. */
  failure?: JobFailure;
  /** When the state last changed: the job's end, or `since` while pending. */
  updatedAt: string;
}

/** The state of an avatar whose preparation is `job` (`undefined`: not stored yet), `pending` since `since`. */
export function stateOfPreparation(job: AvatarPrepareJob | undefined, since: string): AvatarState {
  if (!job || !isFinal(job.status)) return { status: 'pending', updatedAt: since };
  if (job.status === 'completed' && job.result) return { status: 'completed', assets: job.result, updatedAt: job.updatedAt };
  return { status: 'error', failure: job.failure ?? { code: 'processing_failed', message: 'the avatar could not be prepared' }, updatedAt: job.updatedAt };
}
