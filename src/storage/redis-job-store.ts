/**
 * Key layout (every key starts with `<namespace>::`, the prefix @keyv/redis gives its keys, kept so that
 * existing data keeps its keys; `namespace` defaults to `virtual-anchor`):
 *
 *   job:<uid>                       string  the job record as JSON
 *   list:<kind>:*:<owner>           zset    uids of the owner's jobs of that kind, all statuses
 *   list:<kind>:<status>:<owner>    zset    the same, one status
 *   status:<status>:*               zset    uids of all jobs of a status, every owner and kind
 *   status:<status>:<kind>          zset    the same, one kind
 *   expiry                          zset    final jobs, scored by when their record expires;
 *                                           members are JSON `[kind, owner, uid]`
 *   webhooks, webhook-attempts              the webhook outbox ({@link RedisWebhookOutbox}, `store.outbox`): the
 *                                           compare-and-set script queues a delivery in `webhooks`
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
 * When a job reaches a final state the script also puts it in `expiry` (unless it is `kept`) and gives its record key a
 * TTL a little longer than the retention (a safety net); {@link RedisJobStore.deleteExpired} (run by
 * the sweeper, and before every listing) deletes expired records with all their index entries in
 * one {@link EXPIRE_SCRIPT}, so listings and totals never show them.
 *
 * Values are raw strings, not Keyv's value envelope: every write needs an atomic step Keyv does not offer
 * (a compare-and-set script, `SET NX`), so the store talks to Redis through node-redis (`@redis/client`) only.
 *
 * Connection failures never hang a caller: see {@link RedisConnection} (timeouts, no offline
 * queue, background reconnection, {@link StoreUnavailableError}).
 */
import { JOB_STATUSES, type Job, type JobKind, type JobStatus, type ListQuery, type ListResult } from '../domain/job.js';
import { isFinal } from '../domain/state-machine.js';
import { silentLogger, type Logger } from '../domain/logger.js';
import { CasJobStore } from './cas-job-store.js';
import { DEFAULT_RECORD_RETENTION_MS, createdAtMs, pageWindow } from './job-record.js';
import { CAS_SCRIPT } from './redis-cas-script.js';
import { DELETE_SCRIPT, EXPIRE_SCRIPT } from './redis-expiry-script.js';
import { OUTBOX_KEYS, RedisWebhookOutbox } from './redis-webhook-outbox.js';
import { DEFAULT_REDIS_TIMEOUTS, RedisConnection, type RedisTimeouts } from './redis-connection.js';

/** Options of {@link RedisJobStore}. */
export interface RedisJobStoreOptions {
  /** Redis URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key (followed by `::`). Default `virtual-anchor`. Must not be empty. */
  namespace?: string;
  /** Clock used for `updatedAt` on transitions and for record expiry; defaults to the system clock. */
  now?: () => Date;
  /** Connect and command timeouts. Default 2 000 ms each. */
  timeouts?: Partial<RedisTimeouts>;
  /** A record is deleted this long after its job reached a final state. Default 7 days. */
  recordRetentionMs?: number;
  /** Where the store says that Redis became unreachable and reachable again. Default: silent. */
  logger?: Logger;
}

/** A CAS loses only when another writer won, so this many losses in a row means a runaway writer. */
const MAX_CAS_ATTEMPTS = 100;

/** Records deleted per {@link EXPIRE_SCRIPT} call (bounds the time Redis is blocked). */
const EXPIRE_BATCH = 500;

/** The record key outlives the expiry by this much, so the sweeper deletes it with its index entries first. */
const TTL_GRACE_MS = 3_600_000;

/**
 * A {@link JobStore} on Redis, safe for several processes sharing one server.
 * Connects on first use; {@link RedisJobStore.close} disconnects.
 */
export class RedisJobStore extends CasJobStore {
  /** The namespace every key of this store starts with. */
  readonly namespace: string;
  readonly #redis: RedisConnection;
  readonly #clock: () => Date;
  readonly #retentionMs: number;
  /**
   * The webhook outbox this store writes, on the same connection and namespace: the compare-and-set script queues
   * a delivery in the same EVAL that first makes a job with a webhook final. Closing the store ends it.
   */
  readonly outbox: RedisWebhookOutbox;

  constructor(options: RedisJobStoreOptions = {}) {
    super(options.now);
    this.namespace = options.namespace ?? 'virtual-anchor';
    if (this.namespace === '') throw new RangeError('namespace must not be empty');
    this.#clock = options.now ?? (() => new Date());
    this.#retentionMs = options.recordRetentionMs ?? DEFAULT_RECORD_RETENTION_MS;
    if (!(this.#retentionMs > 0)) throw new RangeError('recordRetentionMs must be positive');
    const timeouts = { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts };
    this.#redis = new RedisConnection(options.url ?? 'redis://127.0.0.1:6379', timeouts, options.logger ?? silentLogger);
    this.outbox = new RedisWebhookOutbox(this.#redis, this.namespace);
  }

  /** {@inheritDoc JobStore.create} Rejects when a job with the same uid exists. */
  override async create(job: Job): Promise<void> {
    const keys = [this.#key(`list:${job.kind}:*:${job.owner}`), ...this.#statusKeys(job, job.status)];
    if (!(await this.#cas(job, '', job, [], keys))) throw new Error(`job ${job.uid} already exists`);
  }

  /**
   * {@inheritDoc JobStore.list} Pages are 1-based. Expired records are deleted first; `total` and
   * the page's uids come from one MULTI, so they agree; records are read just after and may
   * already show a newer status.
   */
  override async list(query: ListQuery): Promise<ListResult<Job>> {
    const { offset, count } = pageWindow(query);
    const key = this.#key(`list:${query.kind}:${query.status ?? '*'}:${query.owner}`);
    await this.deleteExpired();
    const [total, uids] = await this.#redis.run('a listing', (client) =>
      client.multi().zCard(key).zRange(key, offset, offset + count - 1, { REV: true }).execTyped(),
    );
    if (uids.length === 0) return { total, items: [] };
    const raws = await this.#redis.run('a read', (client) => client.mGet(uids.map((uid) => this.#key(`job:${uid}`))));
    const items = raws.filter((raw): raw is string => raw !== null).map((raw) => JSON.parse(raw) as Job);
    return { total, items };
  }

  /** {@inheritDoc JobStore.uidsByStatus} Oldest first. */
  override async uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]> {
    return this.#redis.run('an index read', (client) => client.zRange(this.#key(`status:${status}:${kind ?? '*'}`), 0, -1));
  }

  /** {@inheritDoc JobStore.suspectedDown} */
  suspectedDown(): boolean {
    return this.#redis.failing;
  }

  /** {@inheritDoc JobStore.ping} */
  async ping(): Promise<void> {
    await this.#redis.run('PING', (client) => client.ping());
  }

  /** {@inheritDoc JobStore.deleteExpired} Expiry is judged by this store's clock. */
  async deleteExpired(): Promise<number> {
    const now = String(this.#clock().getTime());
    const args = [now, this.#key(''), String(EXPIRE_BATCH), ...JOB_STATUSES];
    let deleted = 0;
    for (;;) {
      const batch = Number(
        await this.#redis.run('the expiry of records', (client) => client.eval(EXPIRE_SCRIPT, { keys: [this.#key('expiry')], arguments: args })),
      );
      deleted += batch;
      if (batch < EXPIRE_BATCH) return deleted;
    }
  }

  /** {@inheritDoc JobStore.delete} */
  async delete(uid: string): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.#readRaw(uid);
      if (!current) return false;
      const { kind, owner } = current.job;
      const deleted = await this.#redis.run('a job deletion', (client) =>
        client.eval(DELETE_SCRIPT, {
          keys: [this.#key('expiry'), this.#key(`job:${uid}`)],
          arguments: [current.raw, this.#key(''), JSON.stringify([kind, owner, uid]), ...JOB_STATUSES],
        }),
      );
      if (Number(deleted) !== -1) return Number(deleted) === 1;
    }
    throw new Error(`job ${uid}: gave up deleting after ${MAX_CAS_ATTEMPTS} conflicting writes`);
  }

  /** {@inheritDoc JobStore.close} Bounded: a connection that does not close in time is dropped. */
  override async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Deletes every key of this store's namespace (tests, resets). */
  async clear(): Promise<void> {
    await this.#redis.unlinkPrefix(`${this.namespace}::`);
  }

  /** Reads the record. */
  protected override async read(uid: string): Promise<Job | undefined> {
    return (await this.#readRaw(uid))?.job;
  }

  /** Read, check `allowed`, compute, compare-and-set; on a lost race read again. */
  protected override async update(
    uid: string,
    allowed: readonly JobStatus[],
    compute: (job: Job) => Job,
    accept?: (job: Job) => boolean,
  ): Promise<Job | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const current = await this.#readRaw(uid);
      if (!current || !allowed.includes(current.job.status) || (accept && !accept(current.job))) return undefined;
      const next = compute(current.job);
      const moves = next.status !== current.job.status;
      const leave = moves ? this.#statusKeys(current.job, current.job.status) : [];
      const join = moves ? this.#statusKeys(next, next.status) : [];
      if (await this.#cas(current.job, current.raw, next, leave, join)) return next;
    }
    throw new Error(`job ${uid}: gave up after ${MAX_CAS_ATTEMPTS} conflicting writes`);
  }

  async #cas(job: Job, expected: string, next: Job, leave: string[], join: string[]): Promise<boolean> {
    // A kept record never enters the expiry set (nor gets a TTL): it is deleted with what it belongs to.
    const expiresAt = isFinal(next.status) && !next.kept ? String(this.#clock().getTime() + this.#retentionMs) : '';
    const written = await this.#redis.run('a job write', (client) =>
      client.eval(CAS_SCRIPT, {
        keys: [this.#key(`job:${job.uid}`), this.#key('expiry'), ...leave, ...join],
        arguments: [
          expected,
          JSON.stringify(next),
          String(leave.length),
          String(createdAtMs(job)),
          job.uid,
          expiresAt,
          String(this.#retentionMs + TTL_GRACE_MS),
          JSON.stringify([job.kind, job.owner, job.uid]),
          next.webhook ? this.#key(OUTBOX_KEYS.due) : '',
          String(this.#clock().getTime()),
        ],
      }),
    );
    return written === 1;
  }

  async #readRaw(uid: string): Promise<{ raw: string; job: Job } | undefined> {
    const raw = await this.#redis.run('a read', (client) => client.get(this.#key(`job:${uid}`)));
    return raw === null ? undefined : { raw, job: JSON.parse(raw) as Job };
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
    return `${this.namespace}::${suffix}`;
  }
}
