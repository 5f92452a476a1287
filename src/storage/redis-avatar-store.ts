import { silentLogger, type Logger } from '../domain/logger.js';
import type { ListResult } from '../domain/job.js';
import type { OwnedAvatar } from '../domain/avatar/owned-avatar.js';
import { checkWindow, type AvatarStore } from './avatar-store.js';
import { DEFAULT_REDIS_TIMEOUTS, RedisConnection, type RedisTimeouts } from './redis-connection.js';

/** Options of {@link RedisAvatarStore}. */
export interface RedisAvatarStoreOptions {
  /** Redis URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (followed by `::`), shared with the job store. Default `virtual-anchor`. */
  namespace?: string;
  timeouts?: Partial<RedisTimeouts>;
  logger?: Logger;
}

/** KEYS: record, owner's list. ARGV: record JSON, score, uid. */
const CREATE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1`;

/** KEYS: record, owner's list. ARGV: the record JSON the caller read, uid. Deletes only when the record is still what the caller read. */
const DELETE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current or current ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1`;

/** A deletion loses only when another writer changed the record in between; this many losses means a runaway writer. */
const MAX_SWAPS = 50;

/**
 * An {@link AvatarStore} on Redis, safe for several processes sharing one server:
 *
 *     avatar:<uid>       string   the record (JSON)
 *     avatars:<owner>    zset     uids of the owner's avatars, scored by createdAt (epoch ms)
 *
 * Every write is one Lua script (a deletion checks that the record is what the deleter read).
 */
export class RedisAvatarStore implements AvatarStore {
  readonly namespace: string;
  readonly #redis: RedisConnection;

  constructor(options: RedisAvatarStoreOptions = {}) {
    this.namespace = options.namespace ?? 'virtual-anchor';
    if (this.namespace === '') throw new RangeError('namespace must not be empty');
    this.#redis = new RedisConnection(
      options.url ?? 'redis://127.0.0.1:6379',
      { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts },
      options.logger ?? silentLogger,
      'avatar store',
    );
  }

  async create(avatar: OwnedAvatar): Promise<void> {
    const created = await this.#redis.run('an avatar creation', (client) =>
      client.eval(CREATE_SCRIPT, {
        keys: [this.#record(avatar.uid), this.#list(avatar.owner)],
        arguments: [JSON.stringify(avatar), String(Date.parse(avatar.createdAt)), avatar.uid],
      }),
    );
    if (Number(created) !== 1) throw new Error(`avatar ${avatar.uid} already exists`);
  }

  async get(uid: string, owner?: string): Promise<OwnedAvatar | undefined> {
    const avatar = (await this.#read(uid))?.avatar;
    return avatar && (owner === undefined || avatar.owner === owner) ? avatar : undefined;
  }

  async list(owner: string, offset: number, count: number): Promise<ListResult<OwnedAvatar>> {
    checkWindow(offset, count);
    const key = this.#list(owner);
    const [total, uids] = await this.#redis.run('an avatar listing', (client) =>
      Promise.all([client.zCard(key), count === 0 ? Promise.resolve([]) : client.zRange(key, offset, offset + count - 1, { REV: true })]),
    );
    if (uids.length === 0) return { total, items: [] };
    const texts = await this.#redis.run('avatar records', (client) => client.mGet(uids.map((uid) => this.#record(uid))));
    const items = texts.filter((text): text is string => typeof text === 'string').map((text) => JSON.parse(text) as OwnedAvatar);
    return { total, items };
  }

  async delete(uid: string): Promise<OwnedAvatar | undefined> {
    for (let attempt = 0; attempt < MAX_SWAPS; attempt++) {
      const read = await this.#read(uid);
      if (!read) return undefined;
      const { owner } = read.avatar;
      const deleted = await this.#redis.run('an avatar deletion', (client) =>
        client.eval(DELETE_SCRIPT, { keys: [this.#record(uid), this.#list(owner)], arguments: [read.text, uid] }),
      );
      if (Number(deleted) === 1) return read.avatar;
    }
    throw new Error(`avatar ${uid} kept changing while it was deleted`);
  }

  async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Deletes every avatar key of this store's namespace (tests, resets). */
  async clear(): Promise<void> {
    await this.#redis.unlinkPrefix(`${this.namespace}::avatar`);
  }

  async #read(uid: string): Promise<{ text: string; avatar: OwnedAvatar } | undefined> {
    const text = await this.#redis.run('an avatar read', (client) => client.get(this.#record(uid)));
    return typeof text === 'string' ? { text, avatar: JSON.parse(text) as OwnedAvatar } : undefined;
  }

  #record(uid: string): string {
    return `${this.namespace}::avatar:${uid}`;
  }

  #list(owner: string): string {
    return `${this.namespace}::avatars:${owner}`;
  }
}
