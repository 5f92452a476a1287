/** The states of a job (SPEC §3); `completed` and `error` are final. */
export type JobStatus = 'pending' | 'ongoing' | 'completed' | 'error';

/** Delays of a poller: start short, grow while nothing changes, start short again after a change. */
export const BACKOFF = { firstMs: 1000, factor: 1.6, maxMs: 15_000, maxAfterErrorMs: 30_000 } as const;

export function isFinal(status: JobStatus): boolean {
  return status === 'completed' || status === 'error';
}

/**
 * Polls one job until it reaches `completed` or `error`: `fetch` is called after each delay, `onUpdate`
 * with every answer. The delay grows by {@link BACKOFF}.factor while the status stays the same and
 * goes back to the first delay when it changes; failed requests (network, 429) back off further.
 * Returns a function that stops polling.
 */
export function pollJob<T extends { status: JobStatus }>(
  initial: T,
  fetch: () => Promise<T>,
  onUpdate: (job: T) => void,
  onError: (error: unknown) => void,
): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay: number = BACKOFF.firstMs;
  let last = initial.status;

  const schedule = () => {
    if (!stopped) timer = setTimeout(tick, delay);
  };
  const tick = async () => {
    try {
      const job = await fetch();
      if (stopped) return;
      onUpdate(job);
      if (isFinal(job.status)) return;
      delay = job.status === last ? Math.min(delay * BACKOFF.factor, BACKOFF.maxMs) : BACKOFF.firstMs;
      last = job.status;
    } catch (error) {
      if (stopped) return;
      onError(error);
      delay = Math.min(Math.max(delay, BACKOFF.firstMs) * 2, BACKOFF.maxAfterErrorMs);
    }
    schedule();
  };

  if (!isFinal(initial.status)) schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
