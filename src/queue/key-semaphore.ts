import type { createClient } from '@redis/client';
import { redisSdk } from '../storage/backend-sdks.js';
import type { Logger } from '../domain/logger.js';
import { ACQUIRE_SCRIPT, DROP_SCRIPT, REFRESH_SCRIPT, REGISTER_SCRIPT, RELEASE_SCRIPT } from './key-semaphore-scripts.js';

type RedisClient = ReturnType<typeof createClient>;

/** Settings of a {@link KeySemaphore}. */
export interface KeySemaphoreOptions {
  url: string;
  /** Key prefix (followed by `:sem:`). */
  prefix: string;
  /** Holders of one key at once. */
  limit: number;
  /** A lease not refreshed for this long lapses (its holder died). */
  leaseMs: number;
  /** A waiter that has not asked for this long loses its place (its job is gone). */
  waiterTtlMs: number;
  logger: Logger;
}

/** How long a dropped job's mark is kept: far longer than any pause between two tries of a waiting job. */
const DROP_MARK_MS = 24 * 3_600_000;

/**
 * A counting semaphore per key in Redis, shared by every process: `limit` leases per key, handed out in
 * the order the holders were registered. Leases expire unless refreshed, so a killed worker's slot frees
 * itself. Every operation is one atomic Lua script.
 */
export class KeySemaphore {
  private readonly client: RedisClient;
  private connecting?: Promise<unknown>;

  constructor(private readonly options: KeySemaphoreOptions) {
    // No offline queue: while Redis is away a call fails at once (the queue retries the job later) instead of hanging.
    this.client = redisSdk().createClient({ url: options.url, disableOfflineQueue: true });
    this.client.on('error', (error: unknown) => {
      options.logger.debug('queue semaphore connection error', { error: String(error) });
    });
  }

  /** Registers a job as waiting for its key; returns its place in the key's order. */
  async register(key: string, uid: string): Promise<number> {
    const order = await this.eval(REGISTER_SCRIPT, [this.key(key, 'waiters'), this.key(key, 'seen'), this.key(key, 'seq')], [
      uid,
      String(this.options.waiterTtlMs),
    ]);
    return Number(order);
  }

  /**
   * Takes a lease for `uid` when its turn has come and a slot is free: `held`; `wait`: ask again later;
   * `dropped`: the job was {@link KeySemaphore.drop | dropped} while it waited and must not run.
   */
  async acquire(key: string, uid: string, order: number): Promise<'held' | 'wait' | 'dropped'> {
    const held = await this.eval(ACQUIRE_SCRIPT, [...this.keys(key), this.key(key, 'dropped')], [
      uid,
      String(this.options.limit),
      String(this.options.leaseMs),
      String(order),
      String(this.options.waiterTtlMs),
    ]);
    return Number(held) === 1 ? 'held' : Number(held) === -1 ? 'dropped' : 'wait';
  }

  /**
   * Drops a job that waits for its key (removed from the queue while a worker held its entry): its next
   * {@link KeySemaphore.acquire} answers `dropped`. False, and nothing changes, when it holds a lease (it runs).
   */
  async drop(key: string, uid: string): Promise<boolean> {
    const keys = [...this.keys(key), this.key(key, 'dropped')];
    return Number(await this.eval(DROP_SCRIPT, keys, [uid, String(DROP_MARK_MS)])) === 1;
  }

  /** Extends a held lease; false when it had lapsed. */
  async refresh(key: string, uid: string): Promise<boolean> {
    return Number(await this.eval(REFRESH_SCRIPT, [this.key(key, 'leases')], [uid, String(this.options.leaseMs)])) === 1;
  }

  /** Gives the lease back (or the place among the waiters). */
  async release(key: string, uid: string): Promise<void> {
    await this.eval(RELEASE_SCRIPT, this.keys(key), [uid]);
  }

  /** Holders of a key now (tests, metrics). */
  async holders(key: string): Promise<string[]> {
    await this.connected();
    return this.client.zRangeByScore(this.key(key, 'leases'), Date.now(), '+inf');
  }

  /** Closes the connection; one that does not close within a second (Redis down or hanging) is dropped. */
  async close(): Promise<void> {
    if (!this.client.isOpen) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      this.client.close().then(
        () => true,
        (error: unknown) => {
          this.options.logger.warn('could not close the queue semaphore connection', { error: String(error) });
          return false;
        },
      ),
      new Promise<false>((done) => (timer = setTimeout(() => done(false), 1_000))),
    ]);
    clearTimeout(timer);
    if (!closed && this.client.isOpen) this.client.destroy();
  }

  private keys(key: string): string[] {
    return [this.key(key, 'leases'), this.key(key, 'waiters'), this.key(key, 'seen')];
  }

  private key(key: string, part: string): string {
    // A hash tag keeps one key's sets in one Redis Cluster slot.
    return `${this.options.prefix}:sem:{${key}}:${part}`;
  }

  private async connected(): Promise<void> {
    if (this.client.isReady) return;
    this.connecting ??= this.client.connect().finally(() => {
      this.connecting = undefined;
    });
    await this.connecting;
  }

  private async eval(script: string, keys: string[], args: string[]): Promise<unknown> {
    await this.connected();
    return this.client.eval(script, { keys, arguments: args });
  }
}
