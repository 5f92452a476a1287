import type { JobQueue } from './job-queue.js';
import { MemoryJobQueue } from './memory-job-queue.js';
import { BullMqJobQueue, type BullMqJobQueueOptions } from './bullmq-job-queue.js';

/** What {@link createJobQueue} needs: the kind, and the BullMQ settings (the in-process queue uses two of them). */
export interface JobQueueSettings extends Omit<BullMqJobQueueOptions, 'url' | 'keyRetryMs'> {
  kind: 'memory' | 'bullmq';
  /** Redis URL; required for `bullmq`. */
  redisUrl?: string;
}

/** The built-in queue the options choose: BullMQ on Redis, or the in-process one. */
export function createJobQueue(settings: JobQueueSettings): JobQueue {
  const { kind, redisUrl, ...bullmq } = settings;
  if (kind === 'memory') return new MemoryJobQueue({ jobsPerKey: settings.jobsPerKey, engines: settings.engines }, settings.logger);
  if (!redisUrl) throw new Error('the bullmq queue needs a Redis URL');
  return new BullMqJobQueue({ url: redisUrl, ...bullmq });
}
