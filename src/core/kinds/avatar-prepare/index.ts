import { defineKind } from '../kind-spec.js';
import type { AvatarPrepareJob } from './record.js';
import { runAvatarPrepare } from './run.js';

/**
 * The background work that makes an avatar's assets (idle clip, preview, thumbnail). No route lists these jobs: the
 * avatar shows their state. Its results belong to the avatar, and it resumes after a stop (the client sees a
 * `pending` avatar, not a job, and running it again is safe).
 */
export const avatarPrepareKind = defineKind<AvatarPrepareJob>({
  kind: 'avatarPrepare',
  run: runAvatarPrepare,
  results: 'owner',
  resumesAfterStop: true,
});

export type { AvatarPrepareJob, AvatarPrepareInput } from './record.js';
