import type { JobStore } from '../../storage/job-store.js';
import type { Logger } from '../logger.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { Scheduler } from '../jobs/scheduler.js';
import { DANGEROUS_FLAG_MESSAGE, type DangerousFlagTimers, isDangerous } from '../jobs/dangerous-flag.js';

/**
 * Finds jobs no process is looking after: `pending` jobs not queued here are queued (the store's
 * compare-and-set keeps two processes from running one job), and `ongoing` jobs whose heartbeat is
 * older than `staleJobMs` were left by a process that died, so they end in `error` with that reason.
 */
export class Recovery {
  constructor(
    private readonly store: JobStore,
    private readonly scheduler: Scheduler,
    private readonly runner: JobRunner,
    private readonly dangerous: DangerousFlagTimers,
    private readonly staleJobMs: number,
    private readonly dangerousDelayMs: number,
    private readonly logger: Logger,
  ) {}

  async run(now = Date.now()): Promise<{ requeued: number; failed: number }> {
    let requeued = 0;
    let failed = 0;
    for (const uid of await this.store.uidsByStatus('pending')) {
      if (this.scheduler.has(uid) || this.dangerous.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'pending') continue;
      if (isDangerous(job)) this.dangerous.arm(job);
      else this.scheduler.enqueue(job);
      requeued++;
    }
    for (const uid of await this.store.uidsByStatus('ongoing')) {
      if (this.scheduler.has(uid) || this.dangerous.has(uid)) continue;
      const job = await this.store.get(uid);
      if (!job || job.status !== 'ongoing') continue;
      if (isDangerous(job)) {
        if (Date.parse(job.createdAt) + this.dangerousDelayMs <= now) {
          if (await this.runner.fail(uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE)) failed++;
        } else {
          // Its timer died with another process: keep the deadline counted from createdAt.
          this.dangerous.arm(job);
          requeued++;
        }
        continue;
      }
      const beat = Date.parse(job.heartbeatAt ?? job.updatedAt);
      if (now - beat < this.staleJobMs) continue;
      const message = 'the process running this job stopped before it finished; submit the job again';
      if (await this.runner.fail(uid, 'interrupted', message)) failed++;
    }
    if (requeued || failed) this.logger.info('recovered jobs', { requeued, failed });
    return { requeued, failed };
  }
}
