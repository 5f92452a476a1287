import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { jobStoreContract } from './job-store-contract.js';

jobStoreContract('MemoryJobStore', async (now) => {
  const store = new MemoryJobStore({ now });
  return { store, dispose: () => store.close() };
});
