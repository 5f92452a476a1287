import type { Job as BullJob, Queue, RedisClient, Worker } from 'bullmq';
import { redisSdk } from '../storage/backend-sdks.js';
import { bullMqSdk } from './bullmq-sdk.js';
import type { Logger } from '../domain/logger.js';
import { KeySemaphore } from './key-semaphore.js';
import { concurrencyKey, type JobQueue, type QueueDepth, type QueuedJob, type QueueHandlers } from './job-queue.js';

/** Settings of a {@link BullMqJobQueue}. */
export interface BullMqJobQueueOptions {
  /** Redis URL. */
  url: string;
  /** Key prefix of everything the queue writes (BullMQ's `prefix`). */
  namespace: string;
  /** Jobs of one key (owner and API family) running at once, across all processes. */
  jobsPerKey: number;
  /** Jobs this process runs at once (BullMQ worker concurrency). */
  engines: number;
  /** Runs of one job at most: deliveries after a worker died (stalled), or after the runner itself failed. */
  maxAttempts: number;
  /**
   * A worker's hold on a job (BullMQ lock) and on its key's slot lapses this long after the worker stopped
   * renewing them (it died); the job is then handed to another worker.
   */
  lockMs: number;
  /**
   * A job's hold on its key's slot lapses this long after its worker stopped refreshing it. Longer than
   * BullMQ's stalled-job detection (about 3 × `lockMs`), so the job run again takes its own slot back before
   * any other job of the key could: the store never shows two `ongoing` jobs of one key, even while a dead
   * worker's job waits to run again. Use `staleJobMs` (after which recovery ends such a job anyway).
   */
  leaseMs: number;
  /** Pause before a job whose key is full asks again. Default 250 ms (plus up to as much jitter). */
  keyRetryMs?: number;
  logger: Logger;
}

/** Longest wait for one step of {@link BullMqJobQueue.close}. */
const CLOSE_STEP_MS = 2_000;

/** The BullMQ queue's name (under the namespace). */
const QUEUE_NAME = 'jobs';
/** BullMQ job names. */
const RUN = 'run';
/** `dangerousFlag` deadlines queued by earlier releases (the core ends those jobs itself now): dropped when met. */
const LEGACY_DEADLINE = 'deadline';

interface RunData extends QueuedJob {
  /** Place in its key's FIFO order. */
  order: number;
}

/**
 * The distributed queue: BullMQ on Redis. Jobs are BullMQ jobs named by their uid. Per-key concurrency holds
 * across all processes through a {@link KeySemaphore}: a job whose key is full goes back to BullMQ's delayed set
 * (`moveToDelayed` + `DelayedError`: not failed, no attempt spent) and asks again shortly.
 *
 * At-least-once: a worker that dies loses its BullMQ lock; BullMQ's stalled-job check (run by every
 * worker) puts the job back, and another worker runs it again (the runner takes the job over with the
 * next attempt number). Up to `maxAttempts` runs.
 */
export class BullMqJobQueue implements JobQueue {
  readonly capabilities = { durable: true, retries: true } as const;
  private readonly queue: Queue;
  private readonly semaphore: KeySemaphore;
  private worker?: Worker;
  private closing?: Promise<void>;
  private readonly keyRetryMs: number;
  private readonly clients: RedisClient[] = [];
  /** BullMQ's package, loaded by the first queue built (see bullmq-sdk.ts). */
  private readonly bullmq = bullMqSdk();

  constructor(private readonly options: BullMqJobQueueOptions) {
    this.keyRetryMs = options.keyRetryMs ?? 250;
    this.queue = new this.bullmq.Queue(QUEUE_NAME, { connection: this.client(), prefix: options.namespace });
    this.queue.on('error', (error: unknown) => options.logger.warn('job queue error', { error: String(error) }));
    this.semaphore = new KeySemaphore({
      url: options.url,
      prefix: options.namespace,
      limit: options.jobsPerKey,
      leaseMs: Math.max(options.leaseMs, options.lockMs),
      waiterTtlMs: Math.max(15_000, this.keyRetryMs * 20),
      logger: options.logger,
    });
  }

  /**
   * A node-redis client in BullMQ's adapter. Every connection BullMQ derives from it (`duplicate`, e.g. the
   * worker's blocking one) gets an error listener too, so a lost Redis is logged, never an uncaught 'error'.
   * BullMQ does not close a connection it was given, so close() does.
   */
  private client(): RedisClient {
    const adapter = this.bullmq.createNodeRedisClient(redisSdk().createClient({ url: this.options.url }));
    const watch = (client: RedisClient): RedisClient => {
      client.on('error', (error: unknown) => this.options.logger.debug('job queue connection error', { error: String(error) }));
      this.clients.push(client);
      const duplicate = client.duplicate.bind(client);
      client.duplicate = (...args: unknown[]) => watch(duplicate(...args));
      return client;
    };
    return watch(adapter);
  }

  /** {@inheritDoc JobQueue.enqueue} Idempotent: the BullMQ job id is the job's uid. */
  async enqueue(job: QueuedJob): Promise<void> {
    const order = await this.semaphore.register(concurrencyKey(job), job.uid);
    const data: RunData = { uid: job.uid, owner: job.owner, kind: job.kind, order };
    await this.queue.add(RUN, data, this.jobOptions(job.uid));
  }

  private jobOptions(jobId: string) {
    return {
      jobId,
      attempts: this.options.maxAttempts,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: true,
      // The job record keeps the outcome; a job whose queue entry failed (Redis lost mid-run) and is still
      // `pending` is queued again by the recovery sweep, which an entry kept under the same id would block.
      removeOnFail: true,
    };
  }

  /**
   * {@inheritDoc JobQueue.remove} A running job stays (its key slot too); the runner ends it through the
   * store. A job a worker holds between two tries for its key's slot (BullMQ will not remove a locked entry)
   * is dropped in the semaphore: its next try ends it without running it.
   */
  async remove(uid: string): Promise<void> {
    const job = (await this.queue.getJob(uid)) as BullJob<RunData> | undefined;
    const removed = await this.queue.remove(uid);
    if (!job?.data) return;
    const key = concurrencyKey(job.data);
    if (removed === 1) await this.semaphore.release(key, uid);
    else await this.semaphore.drop(key, uid);
  }

  /** {@inheritDoc JobQueue.has} Always false: the queue lives in Redis. */
  has(): boolean {
    return false;
  }

  /** {@inheritDoc JobQueue.start} Starts a BullMQ worker with `engines` concurrency. */
  async start(handlers: QueueHandlers): Promise<void> {
    if (this.worker || this.closing) return;
    const { lockMs, maxAttempts, engines } = this.options;
    this.worker = new this.bullmq.Worker(QUEUE_NAME, (job, token) => this.process(job, token, handlers), {
      connection: this.client(),
      prefix: this.options.namespace,
      concurrency: engines,
      lockDuration: lockMs,
      stalledInterval: lockMs,
      // Every run a dead worker left counts; the runner ends the job at `maxAttempts` before BullMQ would.
      maxStalledCount: maxAttempts,
    });
    this.worker.on('error', (error: unknown) => this.options.logger.warn('job queue worker error', { error: String(error) }));
    this.worker.on('stalled', (id: string) => this.options.logger.warn('a job lost its worker; it runs again', { uid: id }));
    this.worker.on('failed', (job: BullJob | undefined, error: Error) =>
      this.options.logger.warn('a queued job failed in the queue', { id: job?.id, attempts: job?.attemptsMade, error: String(error) }),
    );
  }

  private async process(job: BullJob, token: string | undefined, handlers: QueueHandlers): Promise<void> {
    if (job.name === LEGACY_DEADLINE) return; // recovery ends an overdue dangerousFlag job
    const data = job.data as RunData;
    const key = concurrencyKey(data);
    const slot = await this.semaphore.acquire(key, data.uid, data.order);
    if (slot === 'dropped') return; // removed while it waited: completes without running
    if (slot === 'wait') {
      await job.moveToDelayed(Date.now() + this.keyRetryMs + Math.floor(Math.random() * this.keyRetryMs), token);
      throw new this.bullmq.DelayedError();
    }
    const refresh = setInterval(() => {
      this.semaphore.refresh(key, data.uid).then(
        (held) => held || this.options.logger.warn('a job kept running after its key slot lapsed', { uid: data.uid, key }),
        (error: unknown) => this.options.logger.warn('could not refresh a job key slot', { uid: data.uid, error: String(error) }),
      );
    }, Math.max(50, Math.floor(Math.min(this.options.lockMs, this.options.leaseMs) / 3)));
    refresh.unref();
    let handedBack = false;
    try {
      // Only while BullMQ has an attempt left does it deliver the job again after a hand-back. Its attempts can run
      // out before the store's: a delivery that failed before its run claimed the job (Redis refused the key slot, the
      // runner failed) spends one too. The last delivery's engine crash then ends the job with its reason, instead of
      // leaving it `ongoing` until the recovery sweep ends it `interrupted`.
      const retries = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      const outcome = await handlers.run(data.uid, { takeOver: true, retries });
      // A failed delivery is retried (job option `attempts`): the next worker takes the job over, and with it
      // the key slot, which stays held meanwhile (the job is still `ongoing`).
      handedBack = outcome === 'handed-back';
      if (handedBack) throw new Error('handed back (shutdown, or a crash of the engine process)');
    } finally {
      clearInterval(refresh);
      if (!handedBack) await this.semaphore.release(key, data.uid).catch((error: unknown) => {
        // The lease lapses by itself after lockMs.
        this.options.logger.warn('could not release a job key slot', { uid: data.uid, key, error: String(error) });
      });
    }
  }

  /** {@inheritDoc JobQueue.depth} */
  async depth(): Promise<QueueDepth> {
    const counts = await this.queue.getJobCounts('wait', 'prioritized', 'active', 'delayed');
    return { waiting: (counts.wait ?? 0) + (counts.prioritized ?? 0), active: counts.active ?? 0, delayed: counts.delayed ?? 0 };
  }

  /**
   * {@inheritDoc JobQueue.close} Waits for running jobs (their runner ends them first at shutdown). Each step
   * is bounded by `closeStepMs` (Redis may be down or hang): past it, the connections are dropped.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const step = async (what: string, run: () => Promise<unknown>) => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((done) => {
          timer = setTimeout(() => done('late'), CLOSE_STEP_MS);
          timer.unref();
        });
        const outcome = await Promise.race([run().then(() => 'closed' as const), late]).catch((error: unknown) => {
          this.options.logger.warn(`could not close the ${what}`, { error: String(error) });
          return 'failed' as const;
        });
        clearTimeout(timer);
        if (outcome === 'late') this.options.logger.warn(`the ${what} did not close in time; dropping its connections`, { ms: CLOSE_STEP_MS });
      };
      await step('queue worker', async () => this.worker?.close());
      await step('queue', () => this.queue.close());
      await step('queue semaphore', () => this.semaphore.close());
      for (const client of this.clients) client.disconnect(false);
    })();
    return this.closing;
  }
}
