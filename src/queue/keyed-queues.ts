import PQueue from 'p-queue';

/**
 * One p-queue per key (an owner and API family), created on demand and dropped when idle,
 * so memory does not grow with the number of keys ever seen.
 */
export class KeyedQueues {
  private readonly queues = new Map<string, PQueue>();

  constructor(private readonly concurrency: number) {}

  /** Runs `task` when the key has a free slot. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new PQueue({ concurrency: this.concurrency });
      this.queues.set(key, queue);
      const created = queue;
      created.on('idle', () => {
        if (this.queues.get(key) === created && created.size === 0 && created.pending === 0) this.queues.delete(key);
      });
    }
    return queue.add(task);
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
