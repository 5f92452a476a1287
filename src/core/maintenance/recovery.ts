import type { JobStore } from '../../storage/job-store.js';
import type { JobQueue } from '../../queue/job-queue.js';
import type { Logger } from '../../domain/logger.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { JobEnding } from '../jobs/job-ports.js';
import { type DangerousFlag, isDangerous } from '../jobs/dangerous-flag.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** Settings of {@link Recovery}. */
export interface RecoverySettings {
  /** A running job whose heartbeat is this old is stuck (`retention.staleJobMs`); a pending one this old has lost its queue entry. */
  staleJobMs: number;
}

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
@injectable()
export class Recovery {
  constructor(
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
    /** Ends stuck jobs (the runner: stops an engine still running here). */
    @inject(SERVICES.JobEnding) private readonly jobs: JobEnding,
    @inject(SERVICES.DangerousFlag) private readonly dangerous: DangerousFlag,
    /** Which kinds resume after a stop. */
    @inject(SERVICES.Kinds) private readonly kinds: KindRegistry,
    @inject(SERVICES.RecoverySettings) private readonly settings: RecoverySettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  async run(now = Date.now()): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    const durable = this.queue.capabilities.durable;
    for (const uid of await this.store.uidsByStatus('pending')) {
      if (this.queue.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'pending') continue;
      if (durable && now - Date.parse(job.createdAt) < this.settings.staleJobMs) continue;
      if (isDangerous(job)) await this.dangerous.arm(job);
      else await this.queue.enqueue(job);
      requeued++;
    }
    for (const uid of await this.store.uidsByStatus('ongoing')) {
      if (this.queue.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'ongoing') continue;
      if (isDangerous(job)) {
        if (this.dangerous.dueAt(job) <= now) {
          if (await this.dangerous.end(uid)) failed++;
        } else await this.dangerous.arm(job);
        continue;
      }
      const beat = Date.parse(job.heartbeatAt ?? job.updatedAt);
      if (now - beat < this.settings.staleJobMs) continue;
      if (this.kinds.find(job.kind)?.resumesAfterStop) {
        await this.queue.enqueue({ uid, owner: job.owner, kind: job.kind, takeOver: true });
        requeued++;
        continue;
      }
      const message = 'the process running this job stopped before it finished; submit the job again';
      if (await this.jobs.fail(uid, 'interrupted', message, { attempt: job.attempt ?? 0 })) failed++;
    }
    if (requeued || failed) this.logger.info('recovered jobs', { requeued, failed });
    return { requeued, failed };
  }
}
