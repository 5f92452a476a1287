import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { jobStoreContract } from './job-store-contract.js';

jobStoreContract('MemoryJobStore', async (now, settings) => {
  const store = new MemoryJobStore({ now, ...settings });
  return { store, dispose: () => store.close() };
});
