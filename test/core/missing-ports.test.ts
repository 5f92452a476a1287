/**
 * Issue #21: a feature that is on and lacks its port fails at start-up with a clear OptionsError naming the missing
 * port, never silently; the ports the host gives are the ones used, and they are the host's to close.
 * Webhooks (`webhooks.secret`) need the outbox of the job store; Idempotency-Key needs an idempotency store.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  createVirtualAnchor,
  MemoryIdempotencyStore,
  MemoryJobStore,
  OptionsError,
  RedisIdempotencyStore,
  RedisJobStore,
  TOKENS,
  type IdempotencyStore,
  type JobStore,
  type VirtualAnchorOptions,
  type WebhookOutbox,
} from '../../src/index.js';
import { BINARIES } from '../helpers/media.js';
import { FakeAvatarRenderer } from '../helpers/engines.js';
import { SHARED_REDIS_URL } from '../helpers/redis-server.js';

const SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

/** A custom store of records only (it has no outbox of its own to hand out). */
function recordsOnly(inner = new MemoryJobStore()): JobStore {
  return {
    create: (job) => inner.create(job),
    get: (uid, owner) => inner.get(uid, owner),
    transition: (uid, from, to, patch, expect) => inner.transition(uid, from, to, patch, expect),
    patch: (uid, whileIn, patch, expect) => inner.patch(uid, whileIn, patch, expect),
    list: (query) => inner.list(query),
    uidsByStatus: (status, kind) => inner.uidsByStatus(status, kind),
    delete: (uid) => inner.delete(uid),
    close: () => inner.close(),
  };
}

/** The OptionsError issues `ready()` rejected with (fails the test when it resolved or rejected otherwise). */
async function startupIssues(options: Partial<VirtualAnchorOptions>, register?: (instance: ReturnType<typeof createVirtualAnchor>) => void): Promise<string[]> {
  const instance = createVirtualAnchor({ apiKeys: ['k'], logger: false, dataDir: dir, ...BINARIES, ...options, backends: { avatarRenderer: new FakeAvatarRenderer(), ...options.backends } });
  register?.(instance);
  try {
    const error = await instance.ready().then(
      () => assert.fail('start-up succeeded'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof OptionsError, String(error));
    return error.issues;
  } finally {
    await instance.close();
  }
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-ports-'));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('a feature on without its port', () => {
  it('webhooks.secret with backends.jobStore and no outbox: start-up fails naming backends.webhookOutbox', async () => {
    const issues = await startupIssues({ webhooks: { secret: SECRET }, backends: { jobStore: recordsOnly(), idempotencyStore: new MemoryIdempotencyStore() } });
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0]!, /^backends\.webhookOutbox: webhooks are on \(webhooks\.secret is set\) and backends\.jobStore is your own job store/);
  });

  it('a job store registered on the container without an outbox: the issue names TOKENS.JobStore', async () => {
    const issues = await startupIssues({ webhooks: { secret: SECRET }, backends: { idempotencyStore: new MemoryIdempotencyStore() } }, (instance) =>
      instance.container.register(TOKENS.JobStore, { useValue: recordsOnly() }),
    );
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0]!, /^backends\.webhookOutbox: .* TOKENS\.JobStore is your own job store/);
  });

  it('backends.jobStore without an idempotency store: start-up fails naming backends.idempotencyStore (webhooks off)', async () => {
    const issues = await startupIssues({ backends: { jobStore: recordsOnly() } });
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0]!, /^backends\.idempotencyStore: Idempotency-Key needs an IdempotencyStore and backends\.jobStore is your own job store/);
  });

  it('both missing: both named in one OptionsError', async () => {
    const issues = await startupIssues({ webhooks: { secret: SECRET }, backends: { jobStore: recordsOnly() } });
    assert.deepEqual(issues.map((issue) => issue.split(':')[0]), ['backends.webhookOutbox', 'backends.idempotencyStore']);
  });

  it('an outbox without the job store that writes it is refused', async () => {
    const issues = await startupIssues({ webhooks: { secret: SECRET }, backends: { webhookOutbox: new MemoryJobStore().outbox } });
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0]!, /^backends\.webhookOutbox: backends\.webhookOutbox is given without the job store that writes it/);
  });
});

describe('the ports the host gives', () => {
  it('are the ones the instance uses: webhook deliveries are claimed from the given outbox, keys go to the given idempotency store', async () => {
    const store = new MemoryJobStore();
    const claims: number[] = [];
    const outbox: WebhookOutbox = {
      claim: (...args) => {
        claims.push(args[0]);
        return store.outbox.claim(...args);
      },
      settle: (uid, next) => store.outbox.settle(uid, next),
    };
    const keys = new MemoryIdempotencyStore();
    const reserved: string[] = [];
    const idempotencyStore: IdempotencyStore = {
      reserve: (key, fingerprint, ms) => {
        reserved.push(key);
        return keys.reserve(key, fingerprint, ms);
      },
      save: (...args) => keys.save(...args),
      release: (key) => keys.release(key),
      close: () => keys.close(),
    };
    const instance = createVirtualAnchor({
      apiKeys: ['k'],
      logger: false,
      dataDir: dir,
      ...BINARIES,
      webhooks: { secret: SECRET, pollMs: 20 },
      backends: { avatarRenderer: new FakeAvatarRenderer(), jobStore: store, webhookOutbox: outbox, idempotencyStore },
    });
    try {
      await instance.ready();
      const deadline = Date.now() + 5_000;
      while (claims.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(claims.length > 0, 'the webhook sender polls the given outbox');
      const answer = await instance.handle({
        method: 'POST',
        path: '/v1/sourceSeparations',
        headers: { key: 'k', 'idempotency-key': 'same', 'content-type': 'application/json' },
        query: new URLSearchParams(),
        origin: 'http://x',
        mountPath: '',
        bodyStream: Readable.from([]),
        parsedBody: { audioUri: 'not a url' },
      });
      assert.equal(answer?.status, 400);
      assert.equal(reserved.length, 1, 'the request reserved its key in the given store');
    } finally {
      await instance.close();
    }
  });
});

describe('who closes what', () => {
  it('an instance never closes a store the host gave (option or container registration)', async () => {
    const closed: string[] = [];
    const tracked = (name: string): JobStore => ({ ...recordsOnly(), close: async () => void closed.push(name) });
    const keys = (name: string): IdempotencyStore => Object.assign(new MemoryIdempotencyStore(), { close: async () => void closed.push(name) });
    const base = { apiKeys: ['k'], logger: false as const, dataDir: dir, ...BINARIES };
    const registered = createVirtualAnchor({ ...base, backends: { avatarRenderer: new FakeAvatarRenderer() } });
    registered.container.register(TOKENS.JobStore, { useValue: tracked('registered store') });
    registered.container.register(TOKENS.IdempotencyStore, { useValue: keys('registered keys') });
    const passed = createVirtualAnchor({
      ...base,
      backends: { avatarRenderer: new FakeAvatarRenderer(), jobStore: tracked('passed store'), idempotencyStore: keys('passed keys') },
    });
    try {
      await Promise.all([registered.ready(), passed.ready()]);
    } finally {
      await registered.close();
      await passed.close();
    }
    assert.deepEqual(closed, [], 'the host closes what it gave');
  });

  it('on Redis: a host-given store stays open after close(), the stores the instance made are closed', async () => {
    const namespace = `test-ports-${randomUUID()}`;
    const hostStore = new RedisJobStore({ url: SHARED_REDIS_URL, namespace });
    const hostKeys = new RedisIdempotencyStore({ url: SHARED_REDIS_URL, namespace });
    const base = { apiKeys: ['k'], logger: false as const, dataDir: dir, ...BINARIES, redis: SHARED_REDIS_URL, redisNamespace: namespace, queue: 'memory' as const };
    const given = createVirtualAnchor({ ...base, backends: { avatarRenderer: new FakeAvatarRenderer(), jobStore: hostStore, idempotencyStore: hostKeys } });
    const own = createVirtualAnchor({ ...base, backends: { avatarRenderer: new FakeAvatarRenderer() } });
    try {
      await Promise.all([given.ready(), own.ready()]);
      const madeStore = own.container.resolve<JobStore>(TOKENS.JobStore);
      const madeKeys = own.container.resolve<IdempotencyStore>(TOKENS.IdempotencyStore);
      assert.ok(madeStore instanceof RedisJobStore && madeKeys instanceof RedisIdempotencyStore);
      await Promise.all([given.close(), own.close()]);
      assert.equal(await hostStore.get('no-such-job'), undefined, 'the given job store still answers');
      assert.equal((await hostKeys.reserve('still-open', 'fp', 1_000)).state, 'reserved', 'the given idempotency store still answers');
      await assert.rejects(madeStore.get('no-such-job'), /closed/, 'the job store the instance made is closed');
      await assert.rejects(madeKeys.reserve('k', 'fp', 1_000), /closed/, 'the idempotency store the instance made is closed');
    } finally {
      await given.close();
      await own.close();
      await hostStore.clear();
      await hostKeys.clear();
      await hostStore.close();
      await hostKeys.close();
    }
  });

  it('a start-up that fails closes what it made so far', async () => {
    const namespace = `test-ports-${randomUUID()}`;
    const instance = createVirtualAnchor({
      apiKeys: ['k'],
      logger: false,
      dataDir: dir,
      ...BINARIES,
      redis: SHARED_REDIS_URL,
      redisNamespace: namespace,
      queue: 'memory',
      backends: { avatarRenderer: new FakeAvatarRenderer() },
    });
    // A host backend that fails when first used, after the job store the instance makes was made.
    instance.container.register(TOKENS.JobEvents, {
      useFactory: (c) => {
        c.resolve(TOKENS.JobStore);
        throw new Error('no job events (test)');
      },
    });
    try {
      await assert.rejects(instance.ready(), /no job events \(test\)/);
      const made = instance.container.resolve<JobStore>(TOKENS.JobStore);
      assert.ok(made instanceof RedisJobStore, 'the job store was made before the failure');
      await assert.rejects(made.get('no-such-job'), /closed/, 'and closed when start-up failed');
    } finally {
      await instance.close();
    }
  });
});
