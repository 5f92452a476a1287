/**
 * Issue #21: a feature that is on and lacks its port fails at start-up with a clear OptionsError, never silently.
 * Webhooks (`webhooks.secret`) need a job store with a webhook outbox.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createVirtualAnchor, MemoryJobStore, OptionsError, TOKENS, type JobStore } from '../../src/index.js';
import { BINARIES } from '../helpers/media.js';
import { FakeAvatarRenderer } from '../helpers/engines.js';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

/** A custom store with the records only: no webhook outbox, no idempotency keys. */
function recordsOnly(): JobStore {
  const inner = new MemoryJobStore();
  return {
    create: (job) => inner.create(job),
    get: (uid, owner) => inner.get(uid, owner),
    transition: (uid, from, to, patch, expect) => inner.transition(uid, from, to, patch, expect),
    patch: (uid, whileIn, patch, expect) => inner.patch(uid, whileIn, patch, expect),
    list: (query) => inner.list(query),
    uidsByStatus: (status, kind) => inner.uidsByStatus(status, kind),
    close: () => inner.close(),
  };
}

test('webhooks.secret with backends.jobStore lacking an outbox is an OptionsError at once, naming the missing port', () => {
  assert.throws(
    () => createVirtualAnchor({ apiKeys: ['k'], logger: false, webhooks: { secret: SECRET }, backends: { jobStore: recordsOnly() } }),
    (error: unknown) =>
      error instanceof OptionsError && error.issues.some((issue) => issue.startsWith('webhooks.secret:') && /backends\.jobStore has no webhook outbox \(claimWebhooks and settleWebhook/.test(issue)),
  );
  // Without webhooks, the same store is fine.
  assert.doesNotThrow(() => createVirtualAnchor({ apiKeys: ['k'], logger: false, backends: { jobStore: recordsOnly() } }).close());
});

test('a store registered on the container without an outbox makes ready() reject with the OptionsError', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'va-ports-'));
  const instance = createVirtualAnchor({ apiKeys: ['k'], logger: false, dataDir, ...BINARIES, webhooks: { secret: SECRET }, backends: { avatarRenderer: new FakeAvatarRenderer() } });
  instance.container.register(TOKENS.JobStore, { useValue: recordsOnly() });
  try {
    await assert.rejects(instance.ready(), (error: unknown) => error instanceof OptionsError && /TOKENS\.JobStore has no webhook outbox/.test(error.message + error.issues.join(' ')));
  } finally {
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('an instance closes the stores it made, never one the host registered on its container or passed in backends', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'va-owner-'));
  const closed: string[] = [];
  const tracked = (name: string): JobStore => ({ ...recordsOnly(), close: async () => void closed.push(name) });
  const registered = createVirtualAnchor({ apiKeys: ['k'], logger: false, dataDir, ...BINARIES, backends: { avatarRenderer: new FakeAvatarRenderer() } });
  registered.container.register(TOKENS.JobStore, { useValue: tracked('registered') });
  const passed = createVirtualAnchor({ apiKeys: ['k'], logger: false, dataDir, ...BINARIES, backends: { avatarRenderer: new FakeAvatarRenderer(), jobStore: tracked('passed') } });
  try {
    await Promise.all([registered.ready(), passed.ready()]);
  } finally {
    await registered.close();
    await passed.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  assert.deepEqual(closed, [], 'the host closes what it gave');
});
