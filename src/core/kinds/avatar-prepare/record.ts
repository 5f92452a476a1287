import type { Job, JobInput } from '../../../domain/job.js';
import type { PhotoAvatarAssets } from '../../../domain/avatar/photo-avatar.js';
import type { AvatarSource } from '../../avatars/asset-kinds/registry.js';

/** Input of an `avatarPrepare` job: what the avatar is made from (its asset kind's source). */
export type AvatarPrepareInput = AvatarSource &
  JobInput & {
    /**
     * The ids of its assets are `<assetPrefix>-thumbnail`, `-preview` and `-video` (default `avatar-<job uid>`):
     * fixed, so a run taken over after a crash keeps what an earlier run stored.
     */
    assetPrefix?: string;
    /** Always 0: the job has no media input to count its time budget from. */
    durationSec: number;
  };

/**
 * Makes an avatar's idle clip, preview and thumbnail. Its uid is an owned avatar's own (a catalogue avatar's is
 * derived from its definition); its record is kept until the avatar goes, and is the avatar's state.
 */
export type AvatarPrepareJob = Job<'avatarPrepare', AvatarPrepareInput, PhotoAvatarAssets>;

/** A new `avatarPrepare` job (`pending`, kept) making the assets of an avatar made from `source`. */
export function avatarPrepareJob(fields: { uid: string; owner: string; source: AvatarSource; assetPrefix?: string }): AvatarPrepareJob {
  const now = new Date().toISOString();
  return {
    kind: 'avatarPrepare',
    uid: fields.uid,
    owner: fields.owner,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    kept: true,
    input: { ...fields.source, durationSec: 0, ...(fields.assetPrefix ? { assetPrefix: fields.assetPrefix } : {}) },
  };
}

/** The fixed blob ids of an `avatarPrepare` job's assets (a video avatar's face data and atlas too). */
export function preparedAssetIds(job: Pick<AvatarPrepareJob, 'uid' | 'input'>): Record<keyof PhotoAvatarAssets, string> {
  const prefix = job.input.assetPrefix ?? `avatar-${job.uid}`;
  return { thumbnail: `${prefix}-thumbnail`, preview: `${prefix}-preview`, video: `${prefix}-video`, face: `${prefix}-face`, atlas: `${prefix}-atlas` };
}
