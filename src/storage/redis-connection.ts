import type { createClient } from '@redis/client';
import { redisSdk } from './backend-sdks.js';
import type { Logger } from '../domain/logger.js';
import { StoreUnavailableError } from './store-unavailable-error.js';

/** How long the Redis job store waits for Redis. */
export interface RedisTimeouts {
  /** Longest wait for a TCP connection (and the first connection attempt of a request). Default 2 000 ms. */
  connectMs: number;
  /** Longest wait for the answer to one store operation. Default 2 000 ms. */
  commandMs: number;
}

/** The defaults of {@link RedisTimeouts}. */
export const DEFAULT_REDIS_TIMEOUTS: Readonly<RedisTimeouts> = Object.freeze({ connectMs: 2_000, commandMs: 2_000 });

/** Longest pause between two reconnection attempts. */
const MAX_BACKOFF_MS = 5_000;

type RedisClient = ReturnType<typeof createClient>;

/** Redis replies that mean "not now" rather than "wrong command". */
const BUSY_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|OOM)\b/;

/**
 * One node-redis client with the failure behaviour a request handler needs:
 *
 * - connection attempts time out after `connectMs` and are retried in the background with
 *   exponential backoff (100 ms doubling, at most 5 s), for as long as the connection is open;
 * - no offline queue: while disconnected every operation fails at once with
 *   {@link StoreUnavailableError}, and nothing is replayed after reconnection;
 * - every operation is bounded by `commandMs` (also a MULTI, which node-redis does not time out);
 * - the first failure of an outage is logged once (`error`), and so is the recovery (`warn`,
 *   "job store reachable again"), whatever the number of requests or reconnection attempts.
 *
 * It connects on first use and never throws out of an event handler.
 */
export class RedisConnection {
  readonly #client: RedisClient;
  readonly #timeouts: RedisTimeouts;
  readonly #logger: Logger;
  /** `host:port` of the server, for log lines (the URL may hold a password). */
  readonly #where: string;
  readonly #store: string;
  #state: 'idle' | 'connecting' | 'open' | 'closed' = 'idle';
  /** Settles when the first connection attempt succeeded or failed. */
  #firstAttempt?: Promise<void>;
  /** Why the store is unreachable, while an outage is reported. */
  #outage?: string;
  #lastError = 'not connected yet';

  /** `store` names the store in the outage log lines (default `job store`). */
  constructor(url: string, timeouts: RedisTimeouts, logger: Logger, store = 'job store') {
    this.#store = store;
    this.#timeouts = timeouts;
    this.#logger = logger;
    this.#where = hostOf(url);
    this.#client = redisSdk().createClient({
      url,
      disableOfflineQueue: true,
      commandOptions: { timeout: timeouts.commandMs },
      socket: {
        connectTimeout: timeouts.connectMs,
        reconnectStrategy: (retries) => Math.min(100 * 2 ** Math.min(retries, 16), MAX_BACKOFF_MS) + Math.floor(Math.random() * 100),
      },
    });
    // node-redis emits `error` for every failed (re)connection attempt; an unhandled `error` event
    // would throw out of the socket's handler and take the host down.
    this.#client.on('error', (error: unknown) => this.#down(describe(error)));
    this.#client.on('ready', () => this.#up());
  }

  /**
   * Whether the last contact with Redis failed (an outage is reported: a failed connection attempt, a lost
   * connection, an operation that timed out) and nothing has succeeded since, or the connection is closed. Known
   * without a round trip.
   */
  get failing(): boolean {
    return this.#state === 'closed' || this.#outage !== undefined;
  }

  /** Whether a command sent now would be written to a live connection. */
  get isReady(): boolean {
    return this.#client.isReady;
  }

  /** Deletes every key that starts with `prefix` (taken literally: glob characters are escaped). For tests and resets. */
  async unlinkPrefix(prefix: string): Promise<void> {
    const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    const keys = await this.run('a key scan', async (client) => {
      const found: string[] = [];
      for await (const batch of client.scanIterator({ MATCH: match, COUNT: 500 })) found.push(...batch);
      return found;
    });
    if (keys.length > 0) await this.run('a key deletion', (client) => client.unlink(keys));
  }

  /**
   * Runs `op` on the connected client, bounded by `commandMs`. Throws {@link StoreUnavailableError}
   * at once while disconnected, or when Redis does not answer in time; rethrows other errors
   * (a Lua error, a wrong type) as they are. `what` names the operation in messages.
   */
  async run<T>(what: string, op: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.#state === 'closed') throw new StoreUnavailableError(`the ${this.#store} is closed`);
    if (!this.#client.isReady) {
      this.#connect();
      if (this.#state === 'connecting') await this.#firstAttempt;
      if (!this.#client.isReady) throw new StoreUnavailableError(`Redis at ${this.#where} is unreachable: ${this.#lastError}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailableError(`Redis at ${this.#where} did not answer ${what} within ${this.#timeouts.commandMs} ms`)),
        this.#timeouts.commandMs,
      );
    });
    try {
      const result = await Promise.race([op(this.#client), timeout]);
      if (this.#outage !== undefined) this.#up();
      return result;
    } catch (error) {
      const unavailable = this.#asUnavailable(what, error);
      if (!unavailable) throw error;
      this.#down(unavailable.message);
      throw unavailable;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Closes the connection: gracefully within `commandMs` when connected (commands already sent get their
   * answers), else at once. Never rejects, and never leaves a socket or a reconnection loop behind.
   *
   * node-redis's own `close()` marks the client closed before it waits, after which `destroy()` throws and
   * the socket of a server that stopped answering would stay open; so the graceful part is a PING (answered
   * after every command sent before it) raced against the time limit, and the end is always `destroy()`.
   */
  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasOpen = this.#state !== 'idle';
    this.#state = 'closed';
    if (!wasOpen || !this.#client.isOpen) return;
    if (this.#client.isReady) {
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        this.#client.ping().then(
          () => true,
          () => true,
        ),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.#timeouts.commandMs))),
      ]).finally(() => clearTimeout(timer));
      if (!drained) this.#logger.warn('the Redis connection did not close in time; dropping it', { redis: this.#where, waitedMs: this.#timeouts.commandMs });
    }
    try {
      this.#client.destroy();
    } catch (error) {
      this.#logger.warn('the Redis connection could not be dropped cleanly', { redis: this.#where, error: String(error) });
    }
  }

  /** Starts connecting (once); later connection losses reconnect in the background. */
  #connect(): void {
    if (this.#state !== 'idle') return;
    this.#state = 'connecting';
    this.#firstAttempt = new Promise<void>((resolve) => {
      const settle = () => {
        clearTimeout(timer);
        this.#client.off('ready', settle);
        this.#client.off('error', settle);
        if (this.#state === 'connecting') this.#state = 'open';
        resolve();
      };
      // The socket's connect timeout bounds a TCP connect; this bounds the handshake after it too.
      const timer = setTimeout(settle, this.#timeouts.connectMs);
      this.#client.on('ready', settle);
      this.#client.on('error', settle);
    });
    this.#client.connect().catch((error: unknown) => {
      // Only when the connection is closed while connecting, or the handshake itself fails (e.g. AUTH).
      if (this.#state !== 'closed') this.#logger.error('Redis connection gave up', { redis: this.#where, error: describe(error) });
    });
  }

  #down(reason: string): void {
    this.#lastError = reason;
    if (this.#state === 'closed' || this.#outage !== undefined) return;
    this.#outage = reason;
    this.#logger.error(`${this.#store} unreachable; requests that need it answer 503 until it is back`, { redis: this.#where, reason });
  }

  #up(): void {
    if (this.#outage === undefined) return;
    this.#outage = undefined;
    this.#logger.warn(`${this.#store} reachable again`, { redis: this.#where });
  }

  /** The {@link StoreUnavailableError} an operation's failure stands for, or undefined for a genuine error. */
  #asUnavailable(what: string, error: unknown): StoreUnavailableError | undefined {
    if (error instanceof StoreUnavailableError) return error;
    if (isErrorReply(error) && !BUSY_REPLY.test((error as Error).message)) return undefined;
    return new StoreUnavailableError(`Redis at ${this.#where} failed ${what}: ${describe(error)}`, { cause: error });
  }
}

/** node-redis server replies are `ErrorReply` (the package does not re-export the class). */
function isErrorReply(error: unknown): boolean {
  for (let proto = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true;
  }
  return false;
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return (error as NodeJS.ErrnoException).code ?? (error.message || error.constructor.name);
  return String(error);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return '(invalid URL)';
  }
}
