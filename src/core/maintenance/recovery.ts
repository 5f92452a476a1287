import type { JobStore } from '../../storage/job-store.js';
import type { JobQueue } from '../../queue/job-queue.js';
import type { Logger } from '../../domain/logger.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { DANGEROUS_FLAG_MESSAGE, type DangerousFlag, isDangerous } from '../jobs/dangerous-flag.js';

/**
 * Finds jobs no queue is looking after, on each sweep:
 *
 * - `pending` jobs: with the in-process queue, those not queued here are queued (the store's
 *   compare-and-set keeps two processes from running one job). With a durable queue the queue finds
 *   pending jobs itself; only those older than `staleJobMs` are queued again (idempotent: their queue
 *   entry was lost, e.g. the API process died between storing and queuing the job).
 * - `ongoing` jobs whose heartbeat is older than `staleJobMs`: their process died and no queue handed the
 *   job to another worker (the in-process queue never does; a durable queue does well before), so they
 *   end in `error` (`interrupted`); a kind that resumes after a stop (`KindSpec.resumesAfterStop`: avatar
 *   preparations) is queued again to be taken over (its attempts still bounded by `maxAttempts`). A shutdown marks
 *   such a job's heartbeat as long past, so it resumes at the next sweep rather than after `staleJobMs`.
 * - `dangerousFlag` jobs whose deadline passed end in `error`; one not yet due is armed here too (its timer may have
 *   died with the process that armed it; ending it twice is a lost compare-and-set).
 */
export class Recovery {
  constructor(
    private readonly store: JobStore,
    private readonly queue: JobQueue,
    private readonly runner: JobRunner,
    private readonly dangerous: DangerousFlag,
    private readonly staleJobMs: number,
    private readonly dangerousDelayMs: number,
    private readonly logger: Logger,
    /** Which kinds resume after a stop. */
    private readonly kinds: KindRegistry,
  ) {}

  async run(now = Date.now()): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    const durable = this.queue.capabilities.durable;
    for (const uid of await this.store.uidsByStatus('pending')) {
      if (this.queue.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'pending') continue;
      if (durable && now - Date.parse(job.createdAt) < this.staleJobMs) continue;
      if (isDangerous(job)) await this.dangerous.arm(job);
      else await this.queue.enqueue(job);
      requeued++;
    }
    for (const uid of await this.store.uidsByStatus('ongoing')) {
      if (this.queue.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'ongoing') continue;
      if (isDangerous(job)) {
        const dueAt = Date.parse(job.createdAt) + this.dangerousDelayMs;
        if (dueAt <= now) {
          if (await this.runner.fail(uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE)) failed++;
        } else await this.dangerous.arm(job);
        continue;
      }
      const beat = Date.parse(job.heartbeatAt ?? job.updatedAt);
      if (now - beat < this.staleJobMs) continue;
      if (this.kinds.find(job.kind)?.resumesAfterStop) {
        await this.queue.enqueue({ uid, owner: job.owner, kind: job.kind, takeOver: true });
        requeued++;
        continue;
      }
      const message = 'the process running this job stopped before it finished; submit the job again';
      if (await this.runner.fail(uid, 'interrupted', message, { attempt: job.attempt ?? 0 })) failed++;
    }
    if (requeued || failed) this.logger.info('recovered jobs', { requeued, failed });
    return { requeued, failed };
  }
}
