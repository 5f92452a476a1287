import PQueue from 'p-queue';
import type { Logger } from '../domain/logger.js';
import { KeyedQueues } from './keyed-queues.js';
import { concurrencyKey, type JobQueue, type QueueDepth, type QueuedJob, type QueueHandlers } from './job-queue.js';

/** Limits of a {@link MemoryJobQueue}. */
export interface MemoryJobQueueLimits {
  /** Jobs of one key (owner and API family) run at once. */
  jobsPerKey: number;
  /** Jobs run at once in this process, all keys together. */
  engines: number;
}

/**
 * The embedded queue: a p-queue per key with `jobsPerKey` slots and one process-wide p-queue with `engines`
 * slots. Nothing survives the process; another process sharing the job store finds
 * `pending` jobs through the recovery sweep, and a job whose process died ends `interrupted` after
 * `staleJobMs` (no retries).
 */
export class MemoryJobQueue implements JobQueue {
  readonly capabilities = { durable: false, retries: false } as const;
  private readonly perKey: KeyedQueues;
  private readonly engines: PQueue;
  /** Uids queued or running here, so recovery does not queue a job twice. */
  private readonly known = new Set<string>();
  /** Uids queued before `start`. */
  private readonly early: QueuedJob[] = [];
  /** Uids removed while waiting in a p-queue: their turn is skipped. */
  private readonly removed = new Set<string>();
  private handlers?: QueueHandlers;
  private closed = false;

  constructor(
    limits: MemoryJobQueueLimits,
    private readonly logger: Logger,
  ) {
    this.perKey = new KeyedQueues(limits.jobsPerKey);
    this.engines = new PQueue({ concurrency: limits.engines });
  }

  /** {@inheritDoc JobQueue.enqueue} Never rejects: a handler that throws is logged. */
  async enqueue(job: QueuedJob): Promise<void> {
    if (this.closed || this.known.has(job.uid)) return;
    this.known.add(job.uid);
    if (!this.handlers) {
      this.early.push(job);
      return;
    }
    this.dispatch(job, this.handlers);
  }

  private dispatch(job: QueuedJob, handlers: QueueHandlers): void {
    void this.perKey
      .run(concurrencyKey(job), () =>
        this.engines.add(() => (this.closed || this.removed.has(job.uid) ? Promise.resolve() : handlers.run(job.uid, { takeOver: job.takeOver === true }))),
      )
      .catch((error: unknown) => {
        this.logger.error('a job run failed outside its guarded path', { uid: job.uid, kind: job.kind, error: String(error) });
      })
      .finally(() => {
        this.known.delete(job.uid);
        this.removed.delete(job.uid);
      });
  }

  /** {@inheritDoc JobQueue.remove} */
  async remove(uid: string): Promise<void> {
    const early = this.early.findIndex((job) => job.uid === uid);
    if (early >= 0) {
      this.early.splice(early, 1);
      this.known.delete(uid);
    } else if (this.known.has(uid)) this.removed.add(uid); // skipped when its turn comes (a running one ends through the store)
  }

  /** {@inheritDoc JobQueue.has} */
  has(uid: string): boolean {
    return this.known.has(uid);
  }

  /** {@inheritDoc JobQueue.start} */
  async start(handlers: QueueHandlers): Promise<void> {
    if (this.handlers || this.closed) return;
    this.handlers = handlers;
    for (const job of this.early.splice(0)) this.dispatch(job, handlers);
  }

  /** {@inheritDoc JobQueue.depth} */
  async depth(): Promise<QueueDepth> {
    return { waiting: Math.max(0, this.known.size - this.engines.pending), active: this.engines.pending, delayed: 0 };
  }

  /** Stops taking jobs, drops queued ones (they stay `pending` in the store for the next start) and waits for running ones. */
  async close(): Promise<void> {
    this.closed = true;
    this.early.length = 0;
    this.perKey.clear();
    await Promise.all([this.perKey.drain(), this.engines.onIdle()]);
  }
}
