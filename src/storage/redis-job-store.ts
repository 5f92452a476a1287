/**
 * Key layout (every key starts with `<namespace>::`, the prefix @keyv/redis gives its keys;
 * `namespace` defaults to `virtual-anchor`):
 *
 *   job:<uid>                       string  the job record as JSON
 *   list:<kind>:*:<owner>           zset    uids of the owner's jobs of that kind, all statuses
 *   list:<kind>:<status>:<owner>    zset    the same, one status
 *   status:<status>:*               zset    uids of all jobs of a status, every owner and kind
 *   status:<status>:<kind>          zset    the same, one kind
 *
 * Sorted sets are scored by `createdAt` in epoch ms (exact in a double); equal scores order by
 * uid. `*` is never a kind or a status, and the owner comes last, so no two keys collide
 * whatever characters an owner holds.
 *
 * Every write (create, transition, patch) is one EVAL of {@link CAS_SCRIPT}: it writes the record
 * only if it still is exactly what the caller read, and moves the uid between the status indexes
 * in the same step, so records and indexes never disagree and a late writer cannot overwrite
 * a newer state. The script declares every key it touches, but those keys live in different
 * hash slots: this store targets a single Redis (or Sentinel), not Redis Cluster.
 *
 * Records are read through the @keyv/redis adapter (raw strings under its prefix) and written
 * by the script; Keyv's own value envelope is not used, so a `Keyv` wrapped around the same
 * adapter would not read these records.
 */
import KeyvRedis, { createClient } from '@keyv/redis';
import type { Job, JobKind, JobStatus, ListQuery, ListResult } from '../core/job.js';
import { CasJobStore } from './cas-job-store.js';
import { createdAtMs, pageWindow } from './job-record.js';
import { CAS_SCRIPT } from './redis-cas-script.js';

/** Options of {@link RedisJobStore}. */
export interface RedisJobStoreOptions {
  /** Redis URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (followed by `::`). Default `virtual-anchor`. Must not be empty. */
  namespace?: string;
  /** Clock used for `updatedAt` on transitions; defaults to the system clock. */
  now?: () => Date;
}

type RedisClient = ReturnType<typeof createClient>;

/** A CAS loses only when another writer won, so this many losses in a row means a runaway writer. */
const MAX_CAS_ATTEMPTS = 100;

/**
 * A {@link JobStore} on Redis, safe for several processes sharing one server.
 * Connects lazily on first use; {@link RedisJobStore.close} disconnects.
 */
export class RedisJobStore extends CasJobStore {
  /** The namespace every key of this store starts with. */
  readonly namespace: string;
  readonly #client: RedisClient;
  readonly #adapter: KeyvRedis<string>;

  constructor(options: RedisJobStoreOptions = {}) {
    super(options.now);
    this.namespace = options.namespace ?? 'virtual-anchor';
    if (this.namespace === '') throw new RangeError('namespace must not be empty');
    this.#client = createClient({ url: options.url ?? 'redis://127.0.0.1:6379' });
    this.#adapter = new KeyvRedis<string>(this.#client, { namespace: this.namespace, throwOnErrors: true });
  }

  /** {@inheritDoc JobStore.create} Rejects when a job with the same uid exists. */
  override async create(job: Job): Promise<void> {
    const keys = [this.#key(`list:${job.kind}:*:${job.owner}`), ...this.#statusKeys(job, job.status)];
    if (!(await this.#cas(job, '', job, [], keys))) throw new Error(`job ${job.uid} already exists`);
  }

  /**
   * {@inheritDoc JobStore.list} Pages are 1-based. `total` and the page's uids come from one
   * MULTI, so they agree; records are read just after and may already show a newer status.
   */
  override async list(query: ListQuery): Promise<ListResult<Job>> {
    const { offset, count } = pageWindow(query);
    const key = this.#key(`list:${query.kind}:${query.status ?? '*'}:${query.owner}`);
    const client = await this.#connected();
    const [total, uids] = await client
      .multi()
      .zCard(key)
      .zRange(key, offset, offset + count - 1, { REV: true })
      .execTyped();
    if (uids.length === 0) return { total, items: [] };
    const raws = await this.#adapter.getMany<string>(uids.map((uid) => `job:${uid}`));
    const items = raws.filter((raw): raw is string => raw !== undefined).map((raw) => JSON.parse(raw) as Job);
    return { total, items };
  }

  /** {@inheritDoc JobStore.uidsByStatus} Oldest first. */
  override async uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]> {
    const client = await this.#connected();
    return client.zRange(this.#key(`status:${status}:${kind ?? '*'}`), 0, -1);
  }

  /** {@inheritDoc JobStore.close} */
  override async close(): Promise<void> {
    await this.#adapter.disconnect();
  }

  /** Deletes every key of this store's namespace (tests, resets). */
  async clear(): Promise<void> {
    const client = await this.#connected();
    const match = `${this.namespace.replace(/[*?[\]\\]/g, '\\$&')}::*`;
    for await (const keys of client.scanIterator({ MATCH: match, COUNT: 500 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  }

  /** Reads the record. */
  protected override async read(uid: string): Promise<Job | undefined> {
    return (await this.#readRaw(uid))?.job;
  }

  /** Read, check `allowed`, compute, compare-and-set; on a lost race read again. */
  protected override async update(uid: string, allowed: readonly JobStatus[], compute: (job: Job) => Job): Promise<Job | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.#readRaw(uid);
      if (!current || !allowed.includes(current.job.status)) return undefined;
      const next = compute(current.job);
      const moves = next.status !== current.job.status;
      const leave = moves ? this.#statusKeys(current.job, current.job.status) : [];
      const join = moves ? this.#statusKeys(next, next.status) : [];
      if (await this.#cas(current.job, current.raw, next, leave, join)) return next;
    }
    throw new Error(`job ${uid}: gave up after ${MAX_CAS_ATTEMPTS} conflicting writes`);
  }

  async #cas(job: Job, expected: string, next: Job, leave: string[], join: string[]): Promise<boolean> {
    const client = await this.#connected();
    const written = await client.eval(CAS_SCRIPT, {
      keys: [this.#key(`job:${job.uid}`), ...leave, ...join],
      arguments: [expected, JSON.stringify(next), String(leave.length), String(createdAtMs(job)), job.uid],
    });
    return written === 1;
  }

  async #readRaw(uid: string): Promise<{ raw: string; job: Job } | undefined> {
    const raw = await this.#adapter.get<string>(`job:${uid}`);
    return raw === undefined ? undefined : { raw, job: JSON.parse(raw) as Job };
  }

  /** The per-status indexes a job sits in while it has `status`. */
  #statusKeys(job: Job, status: JobStatus): string[] {
    return [
      this.#key(`list:${job.kind}:${status}:${job.owner}`),
      this.#key(`status:${status}:*`),
      this.#key(`status:${status}:${job.kind}`),
    ];
  }

  #key(suffix: string): string {
    return this.#adapter.createKeyPrefix(suffix, this.namespace);
  }

  async #connected(): Promise<RedisClient> {
    await this.#adapter.getClient();
    return this.#client;
  }
}
