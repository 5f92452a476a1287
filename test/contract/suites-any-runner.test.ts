/**
 * The contract suites need nothing of node:test but the `describe` and `it` they are given: here they register
 * with a bare runner of a dozen lines (test/helpers/bare-runner.ts: no hooks, no test context, no time limits, as a vitest or mocha user might
 * hand them less than node:test does), which then runs every test in order. All must pass.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it as nodeIt } from 'node:test';
import { FsBlobStore, MemoryIdempotencyStore, MemoryJobQueue, MemoryJobStore } from '../../src/index.js';
import { silentLogger } from '../../src/domain/logger.js';
import { adapterSuite, blobStoreSuite, idempotencyStoreSuite, jobStoreSuite, queueSuite, webhookOutboxSuite } from '../../src/testing/index.js';
import { bareRunner } from '../helpers/bare-runner.js';
import { BINARIES } from '../helpers/media.js';
import { mountExpress } from '../helpers/adapter-hosts.js';

const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

nodeIt('runs the BlobStore, JobStore, WebhookOutbox, IdempotencyStore, queue and adapter suites under a runner that has only describe and it', { timeout: 120_000 }, async () => {
  const runner = bareRunner();
  const { describe, it } = runner;
  blobStoreSuite('FsBlobStore', {
    describe,
    it,
    create: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'va-bare-runner-'));
      dirs.push(dir);
      return new FsBlobStore(dir);
    },
  });
  jobStoreSuite('MemoryJobStore', { describe, it, create: async (settings) => new MemoryJobStore(settings) });
  webhookOutboxSuite('MemoryJobStore.outbox', {
    describe,
    it,
    create: async ({ now }) => {
      const store = new MemoryJobStore({ now });
      return { store, outbox: store.outbox };
    },
  });
  idempotencyStoreSuite('MemoryIdempotencyStore', { describe, it, create: async () => new MemoryIdempotencyStore() });
  queueSuite('MemoryJobQueue', { describe, it, create: (limits) => new MemoryJobQueue(limits, silentLogger) });
  adapterSuite('Express', {
    describe,
    it,
    instanceOptions: { logger: false, ...BINARIES },
    mount: mountExpress,
  });
  const { passed, failed } = await runner.run();
  assert.deepEqual(failed, []);
  // The blob suite has 10 tests since putFile (30ae5fa), the queue suite 7, the adapter suite 13 since the request signal.
  assert.equal(passed.length, 9 + 1 + 19 + 5 + 4 + 7 + 13, passed.join('\n'));
});
