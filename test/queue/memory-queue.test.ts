import { describe, it } from 'node:test';
import { queueSuite } from '../../src/testing/queue-suite.js';
import { MemoryJobQueue } from '../../src/queue/memory-job-queue.js';
import { silentLogger } from '../../src/domain/logger.js';

queueSuite('in-process (p-queue)', { describe, it, create: (limits) => new MemoryJobQueue(limits, silentLogger) });
