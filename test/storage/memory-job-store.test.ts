import { describe, it } from 'node:test';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { jobStoreSuite } from '../../src/testing/job-store-suite.js';

jobStoreSuite('MemoryJobStore', {
  describe,
  it,
  create: async (settings) => new MemoryJobStore(settings),
  expect: ['recordExpiry'],
});
