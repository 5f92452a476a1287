import type { ListResult } from '../domain/job.js';
import type { OwnedAvatar } from '../domain/avatar/owned-avatar.js';
import { checkWindow, newestAvatarFirst, type AvatarStore } from './avatar-store.js';

/**
 * An {@link AvatarStore} for one process: copies of the records in a map (callers never share objects with it).
 * Nothing survives a restart; use {@link RedisAvatarStore} for that or for several processes.
 */
export class MemoryAvatarStore implements AvatarStore {
  readonly #records = new Map<string, OwnedAvatar>();

  async create(avatar: OwnedAvatar): Promise<void> {
    if (this.#records.has(avatar.uid)) throw new Error(`avatar ${avatar.uid} already exists`);
    this.#records.set(avatar.uid, structuredClone(avatar));
  }

  async get(uid: string, owner?: string): Promise<OwnedAvatar | undefined> {
    const avatar = this.#records.get(uid);
    return avatar && (owner === undefined || avatar.owner === owner) ? structuredClone(avatar) : undefined;
  }

  async list(owner: string, offset: number, count: number): Promise<ListResult<OwnedAvatar>> {
    checkWindow(offset, count);
    const mine = [...this.#records.values()].filter((a) => a.owner === owner).sort(newestAvatarFirst);
    return { total: mine.length, items: mine.slice(offset, offset + count).map((a) => structuredClone(a)) };
  }

  async delete(uid: string): Promise<OwnedAvatar | undefined> {
    const avatar = this.#records.get(uid);
    this.#records.delete(uid);
    return avatar;
  }

  async close(): Promise<void> {}
}
