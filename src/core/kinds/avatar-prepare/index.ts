import { defineKind } from '../kind-spec.js';
import { preparedAssetIds, type AvatarPrepareJob } from './record.js';
import { runAvatarPrepare } from './run.js';

/**
 * The background work that makes an avatar's assets (idle clip, preview, thumbnail), for every asset kind
 * (catalogue, photo). No route lists these jobs: the avatar shows their state. Its results and its record belong
 * to the avatar (kept until the avatar is deleted), its results have fixed ids, and it resumes after a stop (the
 * client sees a `pending` avatar, not a job, and running it again is safe).
 */
export const avatarPrepareKind = defineKind<AvatarPrepareJob>({
  kind: 'avatarPrepare',
  run: runAvatarPrepare,
  results: 'owner',
  record: 'kept',
  resultIds: preparedAssetIds,
  resumesAfterStop: true,
  stillWanted: (job, services) => services.avatars.prepares(job.uid, job.owner),
});

export { avatarPrepareJob, preparedAssetIds, type AvatarPrepareJob, type AvatarPrepareInput } from './record.js';
