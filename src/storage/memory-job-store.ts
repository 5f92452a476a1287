import type { Job, JobKind, JobStatus, ListQuery, ListResult } from '../domain/job.js';
import { CasJobStore } from './cas-job-store.js';
import { isFinal } from '../domain/state-machine.js';
import { DEFAULT_RECORD_RETENTION_MS, createdAtMs, pageWindow } from './job-record.js';
import { KeyedMutex } from './keyed-mutex.js';
import { MemoryWebhookOutbox } from './memory-webhook-outbox.js';
import { copyJson, toJson } from './json-copy.js';

/** Options of {@link MemoryJobStore}. */
export interface MemoryJobStoreOptions {
  /** Clock used for `updatedAt` on transitions and for record expiry; defaults to the system clock. */
  now?: () => Date;
  /** A record is deleted this long after its job reached a final state. Default 7 days. */
  recordRetentionMs?: number;
}

/** What the in-process index knows about one job. `status` is updated in place on transitions. */
interface IndexEntry {
  readonly uid: string;
  readonly kind: JobKind;
  readonly owner: string;
  readonly createdAtMs: number;
  status: JobStatus;
}

/** Newest first by `createdAt`, ties by `uid` descending (the order of Redis ZREVRANGE). */
function newestFirst(a: IndexEntry, b: IndexEntry): number {
  return b.createdAtMs - a.createdAtMs || (a.uid < b.uid ? 1 : a.uid > b.uid ? -1 : 0);
}

/**
 * A {@link JobStore} for one process: records in a map, stored as JSON would carry them and copied on every read
 * (callers never share objects with the store), indexes in plain maps. Writes to one job are
 * serialised per uid, which makes `transition` and `patch` a compare-and-set.
 * Nothing survives a restart; use {@link RedisJobStore} for that or for several processes.
 * Final records expire `recordRetentionMs` after they became final: {@link MemoryJobStore.deleteExpired}
 * (the sweeper, and every listing) deletes them. Its webhook outbox is {@link MemoryJobStore.outbox}.
 */
export class MemoryJobStore extends CasJobStore {
  /** uid → the record as JSON carries it ({@link toJson}); never handed out, only copies of it. */
  readonly #records = new Map<string, Job>();
  readonly #mutex = new KeyedMutex();
  /** uid → index entry. */
  readonly #entries = new Map<string, IndexEntry>();
  /** `kind owner` → entries, kept sorted by {@link newestFirst}. */
  readonly #lists = new Map<string, IndexEntry[]>();
  readonly #byStatus = new Map<JobStatus, Set<string>>();
  /** uid → expiry in epoch ms, for final jobs. */
  readonly #expiry = new Map<string, number>();
  /** The earliest value in {@link MemoryJobStore.#expiry} (a lower bound), so a listing skips the scan. */
  #nextExpiryMs = Number.POSITIVE_INFINITY;
  readonly #clock: () => Date;
  readonly #retentionMs: number;
  /** The webhook outbox this store writes: a delivery is queued in the step that first makes a job with a webhook final. */
  readonly outbox = new MemoryWebhookOutbox();

  constructor(options: MemoryJobStoreOptions = {}) {
    super(options.now);
    this.#clock = options.now ?? (() => new Date());
    this.#retentionMs = options.recordRetentionMs ?? DEFAULT_RECORD_RETENTION_MS;
    if (!(this.#retentionMs > 0)) throw new RangeError('recordRetentionMs must be positive');
  }

  /** {@inheritDoc JobStore.create} Rejects when a job with the same uid exists. */
  override async create(job: Job): Promise<void> {
    const entry: IndexEntry = {
      uid: job.uid,
      kind: job.kind,
      owner: job.owner,
      createdAtMs: createdAtMs(job),
      status: job.status,
    };
    await this.#mutex.run(job.uid, async () => {
      if (this.#entries.has(job.uid)) throw new Error(`job ${job.uid} already exists`);
      this.#records.set(job.uid, toJson(job));
      this.#entries.set(job.uid, entry);
      this.#insertSorted(this.#listOf(job.kind, job.owner), entry);
      this.#statusSet(job.status).add(job.uid);
    });
  }

  /** {@inheritDoc JobStore.list} Pages are 1-based. */
  override async list(query: ListQuery): Promise<ListResult<Job>> {
    const { offset, count } = pageWindow(query);
    await this.deleteExpired();
    const all = this.#lists.get(listKey(query.kind, query.owner)) ?? [];
    const matching = query.status === undefined ? all : all.filter((entry) => entry.status === query.status);
    const uids = matching.slice(offset, offset + count).map((entry) => entry.uid);
    const items: Job[] = [];
    for (const uid of uids) {
      const job = this.#record(uid);
      if (job) items.push(job);
    }
    return { total: matching.length, items };
  }

  /** {@inheritDoc JobStore.uidsByStatus} Oldest first. */
  override async uidsByStatus(status: JobStatus, kind?: JobKind): Promise<string[]> {
    const entries: IndexEntry[] = [];
    for (const uid of this.#byStatus.get(status) ?? []) {
      const entry = this.#entries.get(uid);
      if (entry && (kind === undefined || entry.kind === kind)) entries.push(entry);
    }
    return entries.sort((a, b) => newestFirst(b, a)).map((entry) => entry.uid);
  }

  /** {@inheritDoc JobStore.deleteExpired} Expiry is judged by this store's clock. */
  async deleteExpired(): Promise<number> {
    const now = this.#clock().getTime();
    if (now < this.#nextExpiryMs) return 0;
    const expired = [...this.#expiry].filter(([, at]) => at <= now).map(([uid]) => uid);
    for (const uid of expired) await this.#mutex.run(uid, () => this.#delete(uid));
    this.#nextExpiryMs = Number.POSITIVE_INFINITY;
    for (const at of this.#expiry.values()) if (at < this.#nextExpiryMs) this.#nextExpiryMs = at;
    return expired.length;
  }

  /** {@inheritDoc JobStore.close} Nothing to release: the records stay readable, as they always did. */
  override async close(): Promise<void> {}

  /** Reads the record. */
  protected override async read(uid: string): Promise<Job | undefined> {
    return this.#record(uid);
  }

  /** A fresh copy of the record, or `undefined`. */
  #record(uid: string): Job | undefined {
    const record = this.#records.get(uid);
    return record === undefined ? undefined : copyJson(record);
  }

  /** Compare-and-set under the uid's lock: `compute` runs only when the status is in `allowed`. */
  protected override async update(
    uid: string,
    allowed: readonly JobStatus[],
    compute: (job: Job) => Job,
    accept?: (job: Job) => boolean,
  ): Promise<Job | undefined> {
    return this.#mutex.run(uid, async () => {
      const current = this.#record(uid);
      const entry = this.#entries.get(uid);
      if (!current || !entry || !allowed.includes(current.status) || (accept && !accept(current))) return undefined;
      const next = compute(current);
      this.#records.set(uid, toJson(next));
      if (next.status !== entry.status) {
        this.#statusSet(entry.status).delete(uid);
        this.#statusSet(next.status).add(uid);
        entry.status = next.status;
      }
      // First final state: queue the webhook in the same step, so no crash can lose it, and schedule the record's
      // expiry (a kept record has neither: it is deleted with what it belongs to, as in Redis).
      if (isFinal(next.status) && !isFinal(current.status) && !next.kept) {
        if (next.webhook) this.outbox.add(uid, this.#clock().getTime());
        const at = this.#clock().getTime() + this.#retentionMs;
        this.#expiry.set(uid, at);
        this.#nextExpiryMs = Math.min(this.#nextExpiryMs, at);
      }
      return next;
    });
  }

  /** {@inheritDoc JobStore.delete} */
  async delete(uid: string): Promise<boolean> {
    return this.#mutex.run(uid, async () => {
      if (!this.#entries.has(uid)) return false;
      await this.#delete(uid);
      return true;
    });
  }

  /** Removes a record and every index entry of it (under the uid's lock). */
  async #delete(uid: string): Promise<void> {
    this.#expiry.delete(uid);
    const entry = this.#entries.get(uid);
    this.#records.delete(uid);
    if (!entry) return;
    this.#entries.delete(uid);
    this.#statusSet(entry.status).delete(uid);
    const list = this.#lists.get(listKey(entry.kind, entry.owner));
    const at = list?.indexOf(entry) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
    if (list?.length === 0) this.#lists.delete(listKey(entry.kind, entry.owner));
  }

  #listOf(kind: JobKind, owner: string): IndexEntry[] {
    const key = listKey(kind, owner);
    let list = this.#lists.get(key);
    if (!list) this.#lists.set(key, (list = []));
    return list;
  }

  #statusSet(status: JobStatus): Set<string> {
    let set = this.#byStatus.get(status);
    if (!set) this.#byStatus.set(status, (set = new Set()));
    return set;
  }

  /** Binary insertion keeping {@link newestFirst} order (new jobs usually land at index 0). */
  #insertSorted(list: IndexEntry[], entry: IndexEntry): void {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (newestFirst(list[mid], entry) < 0) low = mid + 1;
      else high = mid;
    }
    list.splice(low, 0, entry);
  }
}

function listKey(kind: JobKind, owner: string): string {
  return `${kind}\u0000${owner}`;
}
