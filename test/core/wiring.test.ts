/**
 * The instance's parts are resolved by its tsyringe container from what each class declares (`@inject(TOKEN)` on
 * every constructor parameter): every internal token resolves, each part is one object per instance, and two
 * instances in one process share none of them.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVirtualAnchor, type VirtualAnchor } from '../../src/core/create-virtual-anchor.js';
import { SERVICES } from '../../src/core/service-tokens.js';
import { JobService } from '../../src/core/jobs/job-service.js';
import { JobRunner } from '../../src/core/jobs/job-runner.js';
import { DangerousFlag } from '../../src/core/jobs/dangerous-flag.js';
import { Recovery } from '../../src/core/maintenance/recovery.js';
import { Sweeper } from '../../src/core/maintenance/sweeper.js';
import { AvatarCatalogue } from '../../src/core/avatars/avatar-catalogue.js';
import { OwnedAvatars } from '../../src/core/avatars/owned-avatars.js';
import { PhotoAvatarService } from '../../src/core/avatars/photo-avatar-service.js';
import { Avatars } from '../../src/core/avatars/avatar-directory.js';
import { Idempotency } from '../../src/core/idempotency/idempotency.js';
import { WebhookDispatcher } from '../../src/core/webhooks/dispatcher.js';
import type { KindServices } from '../../src/core/kinds/kind-spec.js';
import type { JobScheduling } from '../../src/core/jobs/job-ports.js';
import { FakeAvatarRenderer, FakeLipSyncEngine, FakeSeparationEngine } from '../helpers/engines.js';
import { FakeFaceDetector, FakePhotoRenderer } from '../helpers/photo-doubles.js';
import { BINARIES } from '../helpers/media.js';

/** The classes the container builds from their `@inject` declarations, by token. */
const PARTS = new Map<symbol, abstract new (...args: never[]) => unknown>([
  [SERVICES.JobService, JobService],
  [SERVICES.JobRunner, JobRunner],
  [SERVICES.DangerousFlag, DangerousFlag],
  [SERVICES.Recovery, Recovery],
  [SERVICES.Sweeper, Sweeper],
  [SERVICES.Catalogue, AvatarCatalogue],
  [SERVICES.OwnedAvatars, OwnedAvatars],
  [SERVICES.PhotoAvatars, PhotoAvatarService],
  [SERVICES.Avatars, Avatars],
  [SERVICES.Idempotency, Idempotency],
  [SERVICES.Webhooks, WebhookDispatcher],
]);

describe('the instance container builds the parts', () => {
  let dataDir: string;
  const instances: VirtualAnchor[] = [];
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'va-wiring-'));
    for (const name of ['one', 'two']) {
      const instance = createVirtualAnchor({
        apiKeys: [`key-${name}`],
        logger: false,
        dataDir: join(dataDir, name),
        // Webhooks on, so the dispatcher is a part too.
        webhooks: { secret: `whsec_${Buffer.alloc(24, 5).toString('base64')}` },
        ...BINARIES,
        backends: {
          lipSync: new FakeLipSyncEngine(),
          separation: new FakeSeparationEngine(),
          avatarRenderer: new FakeAvatarRenderer(),
          faceDetector: new FakeFaceDetector(),
          photoRenderer: new FakePhotoRenderer(),
        },
      });
      instances.push(instance);
      await instance.ready();
    }
  });
  after(async () => {
    for (const instance of instances) await instance.close();
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  it('every internal token resolves, to one object per instance', () => {
    const { container } = instances[0]!;
    for (const token of Object.values(SERVICES)) {
      assert.ok(container.isRegistered(token), `${token.description} is registered`);
      const first = container.resolve<unknown>(token);
      assert.notEqual(first, undefined, `${token.description} resolves`);
      assert.equal(container.resolve<unknown>(token), first, `${token.description} is made once`);
    }
    for (const [token, type] of PARTS) assert.ok(container.resolve(token) instanceof type, `${token.description} is a ${type.name}`);
  });

  it('the parts are wired to each other: one runner ends jobs, one avatar directory serves the kinds, the scheduling port reaches the service', async () => {
    const { container } = instances[0]!;
    assert.equal(container.resolve(SERVICES.JobEnding), container.resolve(SERVICES.JobRunner));
    assert.equal(container.resolve<KindServices>(SERVICES.KindServices).avatars, container.resolve(SERVICES.Avatars));
    const service = container.resolve<JobService>(SERVICES.JobService);
    const calls: string[] = [];
    const end = service.end.bind(service);
    service.end = async (uid, code, message) => {
      calls.push(`${uid} ${code}`);
      return end(uid, code, message);
    };
    try {
      assert.equal(await container.resolve<JobScheduling>(SERVICES.JobScheduling).end('no-such-job', 'canceled', 'test'), false);
    } finally {
      service.end = end;
    }
    assert.deepEqual(calls, ['no-such-job canceled'], 'the port calls this instance’s job service');
  });

  it('two instances in one process share no part', () => {
    const [one, two] = instances.map((instance) => instance.container);
    assert.notEqual(one, two);
    const shared = Object.values(SERVICES).filter((token) => one!.resolve<unknown>(token) === two!.resolve<unknown>(token));
    assert.deepEqual(shared.map((token) => token.description), []);
  });
});
