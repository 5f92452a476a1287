import type { BlobRef } from '../../domain/job.js';
import type { LipSyncInput } from '../../domain/engines.js';
import { avatarDefinitionSchema } from '../../domain/avatar/definition.js';
import type { AvatarStore } from '../../storage/avatar-store.js';
import type { AvatarCatalogue } from './avatar-catalogue.js';

/** What lip-sync needs of an avatar: its definition, and a photo avatar's portrait (a local file) and face. */
export type LipSyncSubject = Pick<LipSyncInput, 'avatar' | 'photo'>;

/** Makes a local file of a blob for an engine (the job's `localFile`). */
export type LocalFile = (blob: BlobRef, what: string) => Promise<string>;

/** The avatars an owner may animate: the catalogue's and the owner's own. */
export interface AvatarDirectory {
  /** Whether the owner may make videos with this avatar: a catalogue avatar, or one of the owner's that did not fail. */
  usable(uid: string, owner: string): Promise<boolean>;
  /** What lip-sync needs to animate it (files made local with `localFile`); `undefined` when it no longer exists. */
  lipSyncSubject(uid: string, owner: string, localFile: LocalFile): Promise<LipSyncSubject | undefined>;
}

/** The catalogue, then the owner's photo avatars. */
export class Avatars implements AvatarDirectory {
  constructor(
    private readonly catalogue: AvatarCatalogue,
    private readonly photoAvatars: AvatarStore,
  ) {}

  async usable(uid: string, owner: string): Promise<boolean> {
    if (this.catalogue.get(uid)) return true;
    const avatar = await this.photoAvatars.get(uid, owner);
    return avatar !== undefined && avatar.status !== 'error';
  }

  async lipSyncSubject(uid: string, owner: string, localFile: LocalFile): Promise<LipSyncSubject | undefined> {
    const avatar = this.catalogue.definition(uid);
    if (avatar) return { avatar };
    const photoAvatar = await this.photoAvatars.get(uid, owner);
    if (!photoAvatar) return undefined;
    const imagePath = await localFile(photoAvatar.photo, 'photo');
    // The engine reads only the id, the name and the frame rate of a photo avatar's definition.
    const definition = avatarDefinitionSchema.parse({ id: `photo-${photoAvatar.uid}`, name: photoAvatar.name.slice(0, 100) || 'photo', fps: photoAvatar.fps });
    return { avatar: definition, photo: { imagePath, landmarks: photoAvatar.landmarks } };
  }
}
