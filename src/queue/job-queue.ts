import type { JobKind } from '../domain/job.js';

/** What a queue needs to know of a job: its uid, and the key its per-key limit counts under. */
export interface QueuedJob {
  uid: string;
  /** Owner (a hash of the API key). */
  owner: string;
  kind: JobKind;
  /**
   * Set by recovery for a job that resumes after its process stopped (see `Delivery.takeOver`): the run may take
   * over the `ongoing` record the stopped process left. A queue that always takes over (BullMQ) may ignore it.
   */
  takeOver?: boolean;
}

/** The per-key limit's key of a job: one owner and one API family. */
export function concurrencyKey(job: Pick<QueuedJob, 'owner' | 'kind'>): string {
  return `${job.owner}:${job.kind}`;
}

/** How one delivery of a job reaches the runner. */
export interface Delivery {
  /**
   * Whether this delivery may take over a job that is already `ongoing`: true when the queue hands a job
   * again because the worker that ran it died (its lease lapsed), so the runner starts a new attempt.
   */
  takeOver: boolean;
  /**
   * Whether the queue delivers this job again when its run is handed back (`handed-back`), as it does a dead
   * worker's job (queues with `retries`). Default false.
   */
  retries?: boolean;
}

/** What a consuming queue calls; implemented by the job runner. Neither may reject for a job's own failure. */
export interface QueueHandlers {
  /**
   * Runs one job (claims it in the store first); resolves when the run has ended. `handed-back`: the process
   * is shutting down, or (a delivery with `retries`) the engine's process crashed, and the job was left `ongoing`
   * for the queue to hand to another worker (queues with retries).
   */
  run(uid: string, delivery: Delivery): Promise<'ended' | 'handed-back' | void>;
}

/** What a queue backend can promise. */
export interface QueueCapabilities {
  /** Queued jobs survive the death of the process that queued them, and any process may run them. */
  durable: boolean;
  /** A job whose worker died is handed to another worker (at-least-once, up to `maxAttempts`). */
  retries: boolean;
}

/** How many jobs a queue holds. */
export interface QueueDepth {
  /** Waiting for a worker (or for a free slot of their key). */
  waiting: number;
  /** Being run. */
  active: number;
  /** Scheduled for later: jobs re-queued while their key was full. */
  delayed: number;
}

/**
 * Orders job execution: per-key concurrency (`jobsPerKey` for one owner and API family) and the per-process
 * engine limit. The job store stays the one truth about a job's state: a
 * queue only decides when and where the runner is called, and the runner's compare-and-set decides
 * whether that call does anything. Built in: {@link MemoryJobQueue} (one process) and
 * {@link BullMqJobQueue} (Redis, any number of processes).
 */
export interface JobQueue {
  readonly capabilities: QueueCapabilities;
  /** Queues a job. Queuing a job twice runs it at most once at a time (the runner's claim decides). */
  enqueue(job: QueuedJob): Promise<void>;
  /** Drops a job that has not started (a running job is ended through the store). */
  remove(uid: string): Promise<void>;
  /** Whether this process holds the job queued or running (a durable queue answers false: it cannot tell cheaply). */
  has(uid: string): boolean;
  /** Starts handing jobs to `handlers` (a process that only queues, like an API node, never calls it). */
  start(handlers: QueueHandlers): Promise<void>;
  /** Jobs waiting, running and delayed (for a durable queue, across all processes). */
  depth(): Promise<QueueDepth>;
  /** Stops consuming, waits for running handlers and releases connections. Idempotent; never rejects. */
  close(): Promise<void>;
}
