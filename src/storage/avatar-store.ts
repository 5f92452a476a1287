import type { JobFailure, ListResult } from '../domain/job.js';
import type { PhotoAvatar, PhotoAvatarAssets } from '../domain/avatar/photo-avatar.js';

/** How a `pending` photo avatar ends: its assets were made, or could not be. */
export type AvatarOutcome = { status: 'completed'; assets: PhotoAvatarAssets } | { status: 'error'; failure: JobFailure };

/**
 * Where photo avatars (POST /v2/avatar) are kept, until their owner deletes them. Built in: {@link MemoryAvatarStore}
 * (one process) and {@link RedisAvatarStore} (any number of processes sharing a Redis).
 *
 * Implementations must be safe when several processes share one backend: `settle` is a compare-and-set on the
 * `pending` status, so of two processes settling one avatar exactly one wins. When the backend cannot be reached in
 * time, methods reject with a `StoreUnavailableError`.
 */
export interface AvatarStore {
  /** Stores a new avatar and indexes it; rejects when one with the same uid exists. */
  create(avatar: PhotoAvatar): Promise<void>;
  /** The avatar, or `undefined`; with `owner`, another owner's avatar is `undefined` too. */
  get(uid: string, owner?: string): Promise<PhotoAvatar | undefined>;
  /**
   * `count` of the owner's avatars from `offset` on, newest first (`createdAt`, ties by `uid` descending), and how
   * many the owner has in all.
   */
  list(owner: string, offset: number, count: number): Promise<ListResult<PhotoAvatar>>;
  /**
   * Moves a `pending` avatar to its outcome (`assets` or `failure` set, `updatedAt` now). Returns the updated
   * avatar, or `undefined` when it is missing or no longer `pending` (another writer settled it first).
   */
  settle(uid: string, outcome: AvatarOutcome): Promise<PhotoAvatar | undefined>;
  /** Deletes the avatar with its index entries; returns what was deleted, or `undefined` when it was missing. */
  delete(uid: string): Promise<PhotoAvatar | undefined>;
  /** Uids of every `pending` avatar (every owner), for the recovery sweep. */
  pendingUids(): Promise<string[]>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Newest first by `createdAt`, ties by `uid` descending (the order of Redis ZREVRANGE). */
export function newestAvatarFirst(a: PhotoAvatar, b: PhotoAvatar): number {
  return Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.uid < b.uid ? 1 : a.uid > b.uid ? -1 : 0);
}

/** The avatar after `outcome`, stamped `now`. */
export function settled(avatar: PhotoAvatar, outcome: AvatarOutcome, now: Date): PhotoAvatar {
  const { assets: _assets, failure: _failure, ...rest } = avatar;
  return outcome.status === 'completed'
    ? { ...rest, status: 'completed', assets: outcome.assets, updatedAt: now.toISOString() }
    : { ...rest, status: 'error', failure: { ...outcome.failure }, updatedAt: now.toISOString() };
}

/** Checks list arguments as both built-in stores do. */
export function checkWindow(offset: number, count: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`offset must be an integer >= 0, got ${offset}`);
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`count must be an integer >= 0, got ${count}`);
}
