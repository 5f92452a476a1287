import type { Logger } from '../domain/logger.js';
import type { JobQueue } from './job-queue.js';
import { MemoryJobQueue } from './memory-job-queue.js';
import { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq-job-queue.js';

/** What {@link createJobQueue} needs. */
export interface JobQueueSettings {
  kind: 'memory' | 'bullmq';
  redisUrl?: string;
  namespace: string;
  jobsPerKey: number;
  engines: number;
  maxAttempts: number;
  /** BullMQ lock of a running job. */
  lockMs: number;
  /** Key slot lease of a running job (see {@link BullMqJobQueueOptions.leaseMs}). */
  leaseMs: number;
  logger: Logger;
}

/** The built-in queue the options choose: BullMQ on Redis, or the in-process one. */
export function createJobQueue(settings: JobQueueSettings): JobQueue {
  if (settings.kind === 'memory') return new MemoryJobQueue({ jobsPerKey: settings.jobsPerKey, engines: settings.engines }, settings.logger);
  if (!settings.redisUrl) throw new Error('the bullmq queue needs a Redis URL');
  return new BullMqJobQueue({
    url: settings.redisUrl,
    namespace: settings.namespace,
    jobsPerKey: settings.jobsPerKey,
    engines: settings.engines,
    maxAttempts: settings.maxAttempts,
    lockMs: settings.lockMs,
    leaseMs: settings.leaseMs,
    logger: settings.logger,
  });
}
