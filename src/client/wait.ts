import type { JobStatus } from './types.js';

/** Delays of {@link waitForFinal}: start short, grow while nothing changes, start short again after a change. */
export interface Backoff {
  /** First delay, and the delay after the status changes. Default 1000 ms. */
  firstMs: number;
  /** Growth of the delay while the status stays the same. Default 1.6. */
  factor: number;
  /** Largest delay between polls. Default 15 000 ms. */
  maxMs: number;
  /** Largest delay after failed polls (each failure doubles the delay). Default 30 000 ms. */
  maxAfterErrorMs: number;
}

/** The default {@link Backoff}. */
export const DEFAULT_BACKOFF: Backoff = { firstMs: 1000, factor: 1.6, maxMs: 15_000, maxAfterErrorMs: 30_000 };

/** Options of `waitForCompletion`. */
export interface WaitOptions<T> {
  /** Stops waiting: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called with every answer, the last (final) one included. */
  onUpdate?(job: T): void;
  /** Called when a poll fails transiently (network, 429, 5xx); polling goes on after a longer delay. */
  onError?(error: unknown): void;
  /** Delays between polls. */
  backoff?: Partial<Backoff>;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** Whether a job status is final. */
export function isFinal(status: JobStatus): boolean {
  return status === 'completed' || status === 'error';
}

const isTransient = (error: unknown) => (error as { transient?: unknown } | null)?.transient === true;

/**
 * Polls `fetchJob` until the job is `completed` or `error` and returns that answer (a job in `error` is
 * returned, not thrown). The first poll is immediate; then the delay grows by `factor` while the status stays
 * the same and goes back to `firstMs` when it changes. Transient failures (network, 429, 5xx) are reported to
 * `onError` and retried with a doubled delay; any other failure rejects.
 */
export async function waitForFinal<T extends { status: JobStatus }>(
  fetchJob: (signal?: AbortSignal) => Promise<T>,
  options: WaitOptions<T> = {},
  wait: (ms: number, signal?: AbortSignal) => Promise<void> = sleep,
): Promise<T> {
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const { signal } = options;
  let delay = backoff.firstMs;
  let last: JobStatus | undefined;
  for (;;) {
    signal?.throwIfAborted();
    try {
      const job = await fetchJob(signal);
      options.onUpdate?.(job);
      if (isFinal(job.status)) return job;
      delay = last === undefined || job.status !== last ? backoff.firstMs : Math.min(delay * backoff.factor, backoff.maxMs);
      last = job.status;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isTransient(error)) throw error;
      options.onError?.(error);
      delay = Math.min(Math.max(delay, backoff.firstMs) * 2, backoff.maxAfterErrorMs);
    }
    await wait(delay, signal);
  }
}
