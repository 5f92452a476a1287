import { resultBlobIds, type JobFailure, type ListResult } from '../../domain/job.js';
import type { PhotoAvatarAssets, PhotoAvatarStatus } from '../../domain/avatar/photo-avatar.js';
import type { OwnedAvatar, OwnedAvatarFields } from '../../domain/avatar/owned-avatar.js';
import type { Logger } from '../../domain/logger.js';
import { isFinal } from '../../domain/state-machine.js';
import type { AvatarStore } from '../../storage/avatar-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { JobStore } from '../../storage/job-store.js';
import { ApiError } from '../errors.js';
import { avatarPrepareJob, preparedAssetIds, type AvatarPrepareJob } from '../kinds/avatar-prepare/index.js';
import { assetKindOf, type AvatarSource } from './asset-kinds/registry.js';
import { stateOfPreparation, type AvatarState } from './avatar-state.js';
import type { JobScheduling } from '../jobs/job-ports.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import { confirmReachable } from '../../storage/confirm-reachable.js';

/** An avatar a key made, with its state (its preparation's). */
export interface OwnedAvatarView {
  avatar: OwnedAvatar;
  state: AvatarState;
}

/** Settings of {@link OwnedAvatars}. */
export interface OwnedAvatarSettings {
  /** An avatar whose job is not stored this long after its creation gets one (`retention.staleJobMs`). */
  staleMs: number;
}

/**
 * The state a record written before avatars' states moved to their jobs (0.1.0 before 9e378f6: photo avatars, no
 * `asset`) holds: its `avatarPrepare` record was not kept, and expires; the avatar's own copy stays.
 */
interface LegacyState {
  status?: PhotoAvatarStatus;
  assets?: PhotoAvatarAssets;
  failure?: JobFailure;
}

/** What an owned avatar is made from: its record less the fields every avatar has (records without `asset` are photo avatars). */
export function sourceOf(avatar: OwnedAvatar): AvatarSource {
  const { uid: _uid, owner: _owner, name: _name, createdAt: _createdAt, updatedAt: _updatedAt, ...rest } = avatar satisfies OwnedAvatarFields;
  const { status: _status, assets: _assets, failure: _failure, ...source } = rest as typeof rest & LegacyState;
  return { ...source, asset: avatar.asset ?? 'photo' } as AvatarSource;
}

/** The final state an old record holds (see {@link LegacyState}); `undefined` for any other record. */
function legacyStateOf(avatar: OwnedAvatar): AvatarState | undefined {
  const { status, assets, failure } = avatar as OwnedAvatar & LegacyState;
  if (status === 'completed' && assets) return { status, assets, updatedAt: avatar.updatedAt };
  if (status === 'error') return { status, failure: failure ?? { code: 'processing_failed', message: 'the avatar could not be prepared' }, updatedAt: avatar.updatedAt };
  return undefined;
}

/**
 * The avatars keys make (photo avatars; any asset kind of `asset-kinds/registry.ts`): the record in the
 * {@link AvatarStore} says what it is made from, and the `avatarPrepare` job with its uid makes its assets, through
 * the same store, queue, runner and recovery as every job. The avatar's state is that job's: nothing copies it.
 *
 * An avatar is stored before its job; when a process dies in between, the first read of the avatar after
 * `staleMs` schedules the job (the avatar is read again first, so a deleted one is not revived).
 */
@injectable()
export class OwnedAvatars {
  constructor(
    @inject(TOKENS.AvatarStore) private readonly store: AvatarStore,
    /** Where the preparations are read and deleted. */
    @inject(SERVICES.JobStore) private readonly jobStore: JobStore,
    /** Stores and queues the preparations, and ends one whose avatar is deleted. */
    @inject(SERVICES.JobScheduling) private readonly jobs: JobScheduling,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(SERVICES.OwnedAvatarSettings) private readonly settings: OwnedAvatarSettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /**
   * Stores a new avatar, keeps the files of its source (they carry a provisional expiry until the record exists) and
   * schedules its preparation. A failure after the record was stored is logged: a later read schedules it.
   */
  async create(avatar: OwnedAvatar): Promise<OwnedAvatarView> {
    await this.store.create(avatar);
    const source = sourceOf(avatar);
    for (const blob of assetKindOf(source).ownedBlobs(source)) {
      await this.blobs.setExpiry(blob.id, undefined).catch((error: unknown) => {
        this.logger.warn('could not keep a file of a new avatar yet; its preparation will', { uid: avatar.uid, blob: blob.id, error: String(error) });
      });
    }
    await this.jobs.schedule(preparationOf(avatar)).catch((error: unknown) => {
      this.logger.error('could not schedule the preparation of an avatar; its next read will', { uid: avatar.uid, error: String(error) });
    });
    return { avatar, state: { status: 'pending', updatedAt: avatar.updatedAt } };
  }

  /**
   * Before a creation's costly checks (a portrait's face detection, a clip's probes): while the job store reports an
   * outage, a ping decides, so that the request is answered 503 at once rather than after that work (see
   * {@link confirmReachable}; the avatar store gives no such hint, and the built-in setups keep both on one Redis).
   */
  confirmReachable(): Promise<void> {
    return confirmReachable(this.jobStore);
  }

  /** The owner's avatar with its state, or `undefined`. */
  async get(uid: string, owner: string): Promise<OwnedAvatarView | undefined> {
    const avatar = await this.store.get(uid, owner);
    return avatar && { avatar, state: await this.stateOf(avatar) };
  }

  /** A window of the owner's avatars, newest first, with their states. */
  async list(owner: string, offset: number, count: number): Promise<ListResult<OwnedAvatarView>> {
    const page = await this.store.list(owner, offset, count);
    const items = await Promise.all(page.items.map(async (avatar) => ({ avatar, state: await this.stateOf(avatar) })));
    return { total: page.total, items };
  }

  /** The owner's avatar record (what lip-sync animates), whatever its state; `undefined` when there is none. */
  record(uid: string, owner: string): Promise<OwnedAvatar | undefined> {
    return this.store.get(uid, owner);
  }

  /** Whether the owner may make videos with this avatar: it exists and its preparation did not fail. */
  async usable(uid: string, owner: string): Promise<boolean> {
    const view = await this.get(uid, owner);
    return view !== undefined && view.state.status !== 'error';
  }

  /**
   * Deletes the owner's avatar, its preparation (stopped if it runs, here or elsewhere) and its files (its source's
   * and its assets); videos made with it stay. @throws ApiError 404 when the owner has no such avatar.
   */
  async delete(uid: string, owner: string): Promise<void> {
    if (!(await this.store.get(uid, owner))) throw ApiError.notFound('avatar');
    const deleted = await this.store.delete(uid);
    if (!deleted) throw ApiError.notFound('avatar');
    // The record is gone: from here on nothing may stop the files' deletion (a retry would answer 404).
    const job = await this.jobStore.get(uid).catch((error: unknown) => {
      this.logger.warn('could not read the preparation of a deleted avatar', { uid, error: String(error) });
      return undefined;
    });
    // A preparation still running ends (`canceled`); its runner then deletes what it stored, wherever it runs.
    if (job && !isFinal(job.status)) {
      await this.jobs.end(uid, 'canceled', 'the avatar was deleted').catch((error: unknown) => {
        this.logger.warn('could not end the preparation of a deleted avatar; it ends without its files', { uid, error: String(error) });
      });
    }
    const source = sourceOf(deleted);
    const assets = Object.values(preparedAssetIds(preparationOf(deleted)));
    // An old record's assets (and an old job's) have the ids its job gave them then.
    const legacy = [...resultBlobIds((deleted as OwnedAvatar & LegacyState).assets), ...resultBlobIds(job?.result)];
    const files = [...new Set([...assetKindOf(source).ownedBlobs(source).map((blob) => blob.id), ...assets, ...legacy])];
    await Promise.all(
      files.map((id) =>
        this.blobs.delete(id).catch((error: unknown) => {
          this.logger.warn('could not delete a file of a deleted avatar', { uid, blob: id, error: String(error) });
        }),
      ),
    );
    await this.jobStore.delete(uid).catch((error: unknown) => {
      this.logger.error('could not delete the preparation record of a deleted avatar', { uid, error: String(error) });
    });
  }

  /**
   * The avatar's state from its job (an old record's own once its job record expired); a job missing `staleMs` after
   * the avatar's creation is scheduled.
   */
  private async stateOf(avatar: OwnedAvatar): Promise<AvatarState> {
    const job = (await this.jobStore.get(avatar.uid)) as AvatarPrepareJob | undefined;
    if (job) return stateOfPreparation(job, avatar.updatedAt);
    const legacy = legacyStateOf(avatar);
    if (legacy) return legacy;
    if (Date.now() - Date.parse(avatar.createdAt) >= this.settings.staleMs) await this.scheduleLost(avatar);
    return stateOfPreparation(undefined, avatar.updatedAt);
  }

  /** Schedules the preparation of an avatar whose job was never stored, if the avatar still exists. Never rejects. */
  private async scheduleLost(avatar: OwnedAvatar): Promise<void> {
    try {
      if (!(await this.store.get(avatar.uid))) return;
      await this.jobs.schedule(preparationOf(avatar));
      this.logger.warn('scheduled the preparation of an avatar that had none', { uid: avatar.uid });
    } catch (error) {
      // Another read (or process) stored it a moment before, or the store is down: the next read sees.
      this.logger.debug('could not schedule a lost preparation', { uid: avatar.uid, error: String(error) });
    }
  }
}

/** The `avatarPrepare` job of an owned avatar: its uid, owner and source. */
export function preparationOf(avatar: OwnedAvatar): AvatarPrepareJob {
  return avatarPrepareJob({ uid: avatar.uid, owner: avatar.owner, source: sourceOf(avatar) });
}
