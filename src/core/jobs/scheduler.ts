import PQueue from 'p-queue';
import type { Job } from '../job.js';
import type { Logger } from '../logger.js';
import { KeyedQueues } from './keyed-queues.js';

/**
 * Orders job execution: a queue per (owner, job kind) with `jobsPerKey` slots, and one process-wide
 * queue with `engines` slots. A job waiting in either queue stays `pending`.
 */
export class Scheduler {
  private readonly perKey: KeyedQueues;
  private readonly engines: PQueue;
  /** Uids queued or running in this process, so recovery does not queue a job twice. */
  private readonly known = new Set<string>();
  private closed = false;

  constructor(
    limits: { jobsPerKey: number; engines: number },
    private readonly run: (uid: string) => Promise<void>,
    private readonly logger: Logger,
  ) {
    this.perKey = new KeyedQueues(limits.jobsPerKey);
    this.engines = new PQueue({ concurrency: limits.engines });
  }

  /**
   * Queues a job unless it is already queued or running here. Never rejects: a run that throws (the
   * store failed while ending the job) is logged, and recovery ends the job once its heartbeat is stale.
   */
  enqueue(job: Pick<Job, 'uid' | 'owner' | 'kind'>): void {
    if (this.closed || this.known.has(job.uid)) return;
    this.known.add(job.uid);
    void this.perKey
      .run(`${job.owner}:${job.kind}`, () => this.engines.add(() => (this.closed ? Promise.resolve() : this.run(job.uid))))
      .catch((error: unknown) => {
        this.logger.error('a job run failed outside its guarded path', { uid: job.uid, kind: job.kind, error: String(error) });
      })
      .finally(() => this.known.delete(job.uid));
  }

  /** Whether this process has the job queued or running. */
  has(uid: string): boolean {
    return this.known.has(uid);
  }

  /** Stops taking jobs, drops queued ones (they stay `pending` in the store for the next start) and waits for running ones.
   * Queued tasks already handed to the engine queue become no-ops. */
  async close(): Promise<void> {
    this.closed = true;
    this.perKey.clear();
    await Promise.all([this.perKey.drain(), this.engines.onIdle()]);
  }
}
