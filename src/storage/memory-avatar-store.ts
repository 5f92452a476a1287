import type { ListResult } from '../domain/job.js';
import type { PhotoAvatar } from '../domain/avatar/photo-avatar.js';
import { checkWindow, newestAvatarFirst, settled, type AvatarOutcome, type AvatarStore } from './avatar-store.js';

/**
 * An {@link AvatarStore} for one process: copies of the records in a map (callers never share objects with it).
 * Nothing survives a restart; use {@link RedisAvatarStore} for that or for several processes.
 */
export class MemoryAvatarStore implements AvatarStore {
  readonly #records = new Map<string, PhotoAvatar>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async create(avatar: PhotoAvatar): Promise<void> {
    if (this.#records.has(avatar.uid)) throw new Error(`avatar ${avatar.uid} already exists`);
    this.#records.set(avatar.uid, structuredClone(avatar));
  }

  async get(uid: string, owner?: string): Promise<PhotoAvatar | undefined> {
    const avatar = this.#records.get(uid);
    return avatar && (owner === undefined || avatar.owner === owner) ? structuredClone(avatar) : undefined;
  }

  async list(owner: string, offset: number, count: number): Promise<ListResult<PhotoAvatar>> {
    checkWindow(offset, count);
    const mine = [...this.#records.values()].filter((a) => a.owner === owner).sort(newestAvatarFirst);
    return { total: mine.length, items: mine.slice(offset, offset + count).map((a) => structuredClone(a)) };
  }

  async settle(uid: string, outcome: AvatarOutcome): Promise<PhotoAvatar | undefined> {
    const avatar = this.#records.get(uid);
    if (!avatar || avatar.status !== 'pending') return undefined;
    const next = settled(avatar, outcome, this.now());
    this.#records.set(uid, next);
    return structuredClone(next);
  }

  async delete(uid: string): Promise<PhotoAvatar | undefined> {
    const avatar = this.#records.get(uid);
    this.#records.delete(uid);
    return avatar;
  }

  async pendingUids(): Promise<string[]> {
    return [...this.#records.values()].filter((a) => a.status === 'pending').map((a) => a.uid);
  }

  async close(): Promise<void> {}
}
