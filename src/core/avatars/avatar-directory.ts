import type { BlobRef } from '../../domain/job.js';
import type { LipSyncInput } from '../../domain/engines.js';
import { CATALOGUE_OWNER, type AvatarCatalogue } from './avatar-catalogue.js';
import { ASSET_KINDS, assetKindOf } from './asset-kinds/registry.js';
import { sourceOf, type OwnedAvatars } from './owned-avatars.js';
import { inject, injectable } from '../injection.js';
import { SERVICES } from '../service-tokens.js';

/**
 * What lip-sync needs of an avatar: its drawing definition, a photo avatar's portrait (a local file) and face, a video
 * avatar's prepared files.
 */
export type LipSyncSubject = Pick<LipSyncInput, 'avatar' | 'photo' | 'video'>;

/** Makes a local file of a blob for an engine (the job's `localFile`). */
export type LocalFile = (blob: BlobRef, what: string) => Promise<string>;

/** The avatars an owner may animate: the catalogue's and the owner's own. */
export interface AvatarDirectory {
  /** Whether the owner may make videos with this avatar: a catalogue avatar, or one of the owner's that did not fail. */
  usable(uid: string, owner: string): Promise<boolean>;
  /** What lip-sync needs to animate it (files made local with `localFile`); `undefined` when it no longer exists. */
  lipSyncSubject(uid: string, owner: string, localFile: LocalFile): Promise<LipSyncSubject | undefined>;
  /** Whether an avatar still exists whose assets the `avatarPrepare` job `jobUid` of `owner` makes. */
  prepares(jobUid: string, owner: string): Promise<boolean>;
}

/** The catalogue, then the owner's own avatars; each animated the way its asset kind says. */
@injectable()
export class Avatars implements AvatarDirectory {
  constructor(
    @inject(SERVICES.Catalogue) private readonly catalogue: AvatarCatalogue,
    @inject(SERVICES.OwnedAvatars) private readonly owned: OwnedAvatars,
  ) {}

  async usable(uid: string, owner: string): Promise<boolean> {
    return this.catalogue.get(uid) !== undefined || (await this.owned.usable(uid, owner));
  }

  async prepares(jobUid: string, owner: string): Promise<boolean> {
    if (owner === CATALOGUE_OWNER) return this.catalogue.hasPreparation(jobUid);
    return (await this.owned.record(jobUid, owner)) !== undefined;
  }

  async lipSyncSubject(uid: string, owner: string, localFile: LocalFile): Promise<LipSyncSubject | undefined> {
    const definition = this.catalogue.definition(uid);
    if (definition) return ASSET_KINDS.catalogue.lipSync({ asset: 'catalogue', definition }, localFile);
    const view = await this.owned.get(uid, owner);
    if (!view) return undefined;
    const source = sourceOf(view.avatar);
    return assetKindOf(source).lipSync(source, localFile, view.state.assets);
  }
}
