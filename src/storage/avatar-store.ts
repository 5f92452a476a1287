import type { ListResult } from '../domain/job.js';
import type { OwnedAvatar } from '../domain/avatar/owned-avatar.js';

/**
 * Where the avatars keys make (POST /v2/avatar) are kept, until their owner deletes them. Built in:
 * {@link MemoryAvatarStore} (one process) and {@link RedisAvatarStore} (any number of processes sharing a Redis).
 * A record holds what the avatar is made from; its state (`thumbnailGenerationStatus`, assets, failure) is its
 * `avatarPrepare` job's, in the job store.
 *
 * Implementations must be safe when several processes share one backend. When the backend cannot be reached in
 * time, methods reject with a `StoreUnavailableError`.
 */
export interface AvatarStore {
  /** Stores a new avatar and indexes it; rejects when one with the same uid exists. */
  create(avatar: OwnedAvatar): Promise<void>;
  /** The avatar, or `undefined`; with `owner`, another owner's avatar is `undefined` too. */
  get(uid: string, owner?: string): Promise<OwnedAvatar | undefined>;
  /**
   * `count` of the owner's avatars from `offset` on, newest first (`createdAt`, ties by `uid` descending), and how
   * many the owner has in all.
   */
  list(owner: string, offset: number, count: number): Promise<ListResult<OwnedAvatar>>;
  /** Deletes the avatar with its index entries; returns what was deleted, or `undefined` when it was missing. */
  delete(uid: string): Promise<OwnedAvatar | undefined>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Newest first by `createdAt`, ties by `uid` descending (the order of Redis ZREVRANGE). */
export function newestAvatarFirst(a: OwnedAvatar, b: OwnedAvatar): number {
  return Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.uid < b.uid ? 1 : a.uid > b.uid ? -1 : 0);
}

/** Checks list arguments as both built-in stores do. */
export function checkWindow(offset: number, count: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset must be an integer >= 0, got ${offset}`);
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be an integer >= 0, got ${count}`);
}
