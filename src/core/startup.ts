import type { Logger } from '../domain/logger.js';

/** First pause before a failed start-up is tried again; it doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/**
 * Start-up of an instance that is never a permanent failure: {@link Startup.get} builds the
 * services once; when that fails, calls within the retry pause reject at once with the same
 * error, and the next call after it tries again (pauses of 1 s doubling up to 60 s). The log
 * says why once per distinct cause, and says so again when a retry succeeds.
 */
export class Startup<T> {
  #value?: T;
  #attempt?: Promise<T>;
  #failure?: { error: unknown; retryAt: number; pauseMs: number; failures: number };
  #closed = false;

  constructor(
    private readonly build: () => Promise<T>,
    private readonly onStarted: (value: T) => void,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The started value, if start-up has succeeded. */
  get value(): T | undefined {
    return this.#value;
  }

  /** The error of the last failed attempt, while start-up has not succeeded since; `undefined` otherwise. */
  get failure(): unknown {
    return this.#failure?.error;
  }

  /** Starts in the background (the first attempt); a failure is logged, and retried on the next {@link Startup.get}. */
  start(): void {
    this.get().catch((error: unknown) => this.logger.debug('start-up attempt failed (logged above)', { error: String(error) }));
  }

  /** The started value; starts (or retries) start-up when due. Rejects with the last failure otherwise. */
  get(): Promise<T> {
    if (this.#value !== undefined) return Promise.resolve(this.#value);
    if (this.#attempt) return this.#attempt;
    if (this.#closed) return Promise.reject(new Error('virtual-anchor is closed'));
    const failure = this.#failure;
    if (failure && this.now() < failure.retryAt) return Promise.reject(failure.error);
    this.#attempt = this.build().then(
      (value) => this.#succeed(value),
      (error: unknown) => this.#fail(error),
    );
    return this.#attempt;
  }

  /**
   * Stops retrying and returns what was started, waiting for an attempt in flight; `undefined`
   * when nothing started. Never rejects.
   */
  async close(): Promise<T | undefined> {
    this.#closed = true;
    if (this.#attempt) {
      try {
        await this.#attempt;
      } catch {
        // #fail has logged this failure; there is nothing started to return.
      }
    }
    return this.#value;
  }

  #succeed(value: T): T {
    this.#attempt = undefined;
    if (this.#closed) {
      // close() is waiting for this attempt and will close what it built; do not start it.
      this.#value = value;
      return value;
    }
    if (this.#failure) this.logger.warn('virtual-anchor started after failed attempts', { failures: this.#failure.failures });
    this.#failure = undefined;
    this.#value = value;
    this.onStarted(value);
    return value;
  }

  #fail(error: unknown): never {
    this.#attempt = undefined;
    const previous = this.#failure;
    const pauseMs = previous ? Math.min(previous.pauseMs * 2, MAX_RETRY_MS) : FIRST_RETRY_MS;
    if (String(previous?.error) !== String(error)) {
      this.logger.error('virtual-anchor failed to start; it retries when a request comes', { error: String(error), retryInMs: pauseMs });
    }
    this.#failure = { error, retryAt: this.now() + pauseMs, pauseMs, failures: (previous?.failures ?? 0) + 1 };
    throw error;
  }
}
