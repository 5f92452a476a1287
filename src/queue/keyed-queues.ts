import PQueue from 'p-queue';

/**
 * One p-queue per key (an owner and API family), created on demand and dropped when idle,
 * so memory does not grow with the number of keys ever seen.
 */
export class KeyedQueues {
  private readonly queues = new Map<string, PQueue>();

  constructor(private readonly concurrency: number) {}

  /**
   * Runs `task` when the key has a free slot. Aborting `signal` while it waits removes it (rejecting with the
   * signal's reason; it no longer counts in {@link waiting}); a started task runs to its end and keeps its slot
   * meanwhile, whatever the signal does (stopping it is the task's own business).
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new PQueue({ concurrency: this.concurrency });
      this.queues.set(key, queue);
      const created = queue;
      created.on('idle', () => {
        if (this.queues.get(key) === created && created.size === 0 && created.pending === 0) this.queues.delete(key);
      });
    }
    if (!signal) return queue.add(task);
    // p-queue would also reject a started task on abort and free its slot while it still runs: its signal only
    // follows the caller's until the task starts.
    const whileWaiting = new AbortController();
    const forward = () => whileWaiting.abort(signal.reason);
    signal.addEventListener('abort', forward, { once: true });
    const started = () => {
      signal.removeEventListener('abort', forward);
      return task();
    };
    return queue.add(started, { signal: whileWaiting.signal }).finally(() => signal.removeEventListener('abort', forward));
  }

  /** Tasks waiting (not yet running) for a key. */
  waiting(key: string): number {
    return this.queues.get(key)?.size ?? 0;
  }

  /** Tasks running for a key. */
  running(key: string): number {
    return this.queues.get(key)?.pending ?? 0;
  }

  /** Waits until every queue is empty and idle. */
  async drain(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
  }

  /** Drops tasks that have not started yet. */
  clear(): void {
    for (const q of this.queues.values()) q.clear();
  }
}
