import { silentLogger, type Logger } from '../domain/logger.js';
import type { ListResult } from '../domain/job.js';
import type { PhotoAvatar } from '../domain/avatar/photo-avatar.js';
import { checkWindow, settled, type AvatarOutcome, type AvatarStore } from './avatar-store.js';
import { DEFAULT_REDIS_TIMEOUTS, RedisConnection, type RedisTimeouts } from './redis-connection.js';

/** Options of {@link RedisAvatarStore}. */
export interface RedisAvatarStoreOptions {
  /** Redis URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (followed by `::`), shared with the job store. Default `virtual-anchor`. */
  namespace?: string;
  /** Clock of `updatedAt` on settle. */
  now?: () => Date;
  timeouts?: Partial<RedisTimeouts>;
  logger?: Logger;
}

/** KEYS: record, owner's list, pending set. ARGV: record JSON, score, uid, '1' when pending. */
const CREATE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if ARGV[4] == '1' then redis.call('SADD', KEYS[3], ARGV[3]) end
return 1`;

/**
 * KEYS: record, pending set, and for a deletion the owner's list. ARGV: the record JSON the caller read, the new
 * JSON ('' deletes), uid. Writes only when the record is still what the caller read.
 */
const SWAP_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or current ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[3], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
redis.call('SREM', KEYS[2], ARGV[3])
return 1`;

/** A swap loses only when another writer changed the record in between; this many losses means a runaway writer. */
const MAX_SWAPS = 50;

/**
 * An {@link AvatarStore} on Redis, safe for several processes sharing one server:
 *
 *     avatar:<uid>       string   the record (JSON)
 *     avatars:<owner>    zset     uids of the owner's avatars, scored by createdAt (epoch ms)
 *     avatars-pending    set      uids of pending avatars
 *
 * Every write is one Lua script that checks the record is what the writer read (compare-and-set).
 */
export class RedisAvatarStore implements AvatarStore {
  readonly namespace: string;
  readonly #redis: RedisConnection;
  readonly #now: () => Date;

  constructor(options: RedisAvatarStoreOptions = {}) {
    this.namespace = options.namespace ?? 'virtual-anchor';
    if (this.namespace === '') throw new RangeError('namespace must not be empty');
    this.#now = options.now ?? (() => new Date());
    this.#redis = new RedisConnection(
      options.url ?? 'redis://127.0.0.1:6379',
      { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts },
      options.logger ?? silentLogger,
      'avatar store',
    );
  }

  async create(avatar: PhotoAvatar): Promise<void> {
    const created = await this.#redis.run('an avatar creation', (client) =>
      client.eval(CREATE_SCRIPT, {
        keys: [this.#record(avatar.uid), this.#list(avatar.owner), this.#pending()],
        arguments: [JSON.stringify(avatar), String(Date.parse(avatar.createdAt)), avatar.uid, avatar.status === 'pending' ? '1' : '0'],
      }),
    );
    if (Number(created) !== 1) throw new Error(`avatar ${avatar.uid} already exists`);
  }

  async get(uid: string, owner?: string): Promise<PhotoAvatar | undefined> {
    const avatar = (await this.#read(uid))?.avatar;
    return avatar && (owner === undefined || avatar.owner === owner) ? avatar : undefined;
  }

  async list(owner: string, offset: number, count: number): Promise<ListResult<PhotoAvatar>> {
    checkWindow(offset, count);
    const key = this.#list(owner);
    const [total, uids] = await this.#redis.run('an avatar listing', (client) =>
      Promise.all([client.zCard(key), count === 0 ? Promise.resolve([]) : client.zRange(key, offset, offset + count - 1, { REV: true })]),
    );
    if (uids.length === 0) return { total, items: [] };
    const texts = await this.#redis.run('avatar records', (client) => client.mGet(uids.map((uid) => this.#record(uid))));
    const items = texts.filter((text): text is string => typeof text === 'string').map((text) => JSON.parse(text) as PhotoAvatar);
    return { total, items };
  }

  async settle(uid: string, outcome: AvatarOutcome): Promise<PhotoAvatar | undefined> {
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const read = await this.#read(uid);
      if (!read || read.avatar.status !== 'pending') return undefined;
      const next = settled(read.avatar, outcome, this.#now());
      if (await this.#swap(read, JSON.stringify(next))) return next;
    }
    throw new Error(`avatar ${uid} kept changing while it was settled`);
  }

  async delete(uid: string): Promise<PhotoAvatar | undefined> {
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const read = await this.#read(uid);
      if (!read) return undefined;
      if (await this.#swap(read, '')) return read.avatar;
    }
    throw new Error(`avatar ${uid} kept changing while it was deleted`);
  }

  async pendingUids(): Promise<string[]> {
    return this.#redis.run('the pending avatars', (client) => client.sMembers(this.#pending()));
  }

  async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Deletes every avatar key of this store's namespace (tests, resets). */
  async clear(): Promise<void> {
    await this.#redis.unlinkPrefix(`${this.namespace}::avatar`);
  }

  async #read(uid: string): Promise<{ text: string; avatar: PhotoAvatar } | undefined> {
    const text = await this.#redis.run('an avatar read', (client) => client.get(this.#record(uid)));
    return typeof text === 'string' ? { text, avatar: JSON.parse(text) as PhotoAvatar } : undefined;
  }

  /** Replaces (or with `''` deletes) the record when it is still `read`; false when another writer changed it. */
  async #swap(read: { text: string; avatar: PhotoAvatar }, next: string): Promise<boolean> {
    const { uid, owner } = read.avatar;
    const swapped = await this.#redis.run('an avatar write', (client) =>
      client.eval(SWAP_SCRIPT, { keys: [this.#record(uid), this.#pending(), this.#list(owner)], arguments: [read.text, next, uid] }),
    );
    return Number(swapped) === 1;
  }

  #record(uid: string): string {
    return `${this.namespace}::avatar:${uid}`;
  }

  #list(owner: string): string {
    return `${this.namespace}::avatars:${owner}`;
  }

  #pending(): string {
    return `${this.namespace}::avatars-pending`;
  }
}
