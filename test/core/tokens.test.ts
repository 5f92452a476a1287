import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createVirtualAnchor } from '../../src/core/create-virtual-anchor.js';
import { TOKENS } from '../../src/core/tokens.js';
import { noMetrics } from '../../src/core/metrics/metrics-recorder.js';
import { HumanFaceDetector } from '../../src/inference/face/face-detector.js';
import type { Logger } from '../../src/domain/logger.js';
import { FakeAvatarRenderer, FakeLipSyncEngine, FakeSeparationEngine } from '../helpers/engines.js';
import { FakeFaceDetector, FakePhotoRenderer } from '../helpers/photo-doubles.js';
import { BINARIES } from '../helpers/media.js';

const names = (tokens: Iterable<symbol>) => [...tokens].map((token) => token.description).sort();

describe('TOKENS of the instance container', () => {
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('every token is registered and resolvable, and the service resolves each one while it starts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'va-tokens-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));
    const lines: string[] = [];
    const logger: Logger = { debug: () => undefined, info: (message) => void lines.push(message), warn: () => undefined, error: () => undefined };
    const lipSync = new FakeLipSyncEngine();
    const separation = new FakeSeparationEngine();
    const avatarRenderer = new FakeAvatarRenderer();
    const faceDetector = new FakeFaceDetector();
    const photoRenderer = new FakePhotoRenderer();
    const instance = createVirtualAnchor({
      apiKeys: ['test-key-tokens'],
      logger,
      dataDir,
      avatars: { builtIn: true },
      // Webhooks on, so the outbox is used too.
      webhooks: { secret: `whsec_${Buffer.alloc(24, 3).toString('base64')}` },
      ...BINARIES,
      backends: { lipSync, separation, avatarRenderer, faceDetector, photoRenderer },
    });
    cleanup.push(() => instance.close());

    // Start-up begins on the next microtask: watch every resolve the service makes while it builds its parts.
    const { container } = instance;
    const resolvedAtStart = new Set<symbol>();
    let watching = true;
    const resolve = container.resolve.bind(container);
    // The parts' constructors resolve their `@inject` tokens through this method too (with its other arguments).
    container.resolve = ((token: symbol, ...rest: unknown[]) => {
      if (watching) resolvedAtStart.add(token);
      return (resolve as (...args: unknown[]) => unknown)(token, ...rest);
    }) as typeof container.resolve;
    await instance.avatarsReady();
    watching = false;
    await instance.ready();

    const all = Object.values(TOKENS);
    assert.deepEqual(names(all.filter((token) => !container.isRegistered(token))), [], 'registered');
    for (const token of all) assert.notEqual(container.resolve(token), undefined, `${token.description} resolves`);
    assert.deepEqual(names(all.filter((token) => !resolvedAtStart.has(token))), [], 'resolved by the service');

    // The values in the container are the ones the instance was given and uses.
    assert.equal(container.resolve(TOKENS.LipSyncEngine), lipSync);
    assert.equal(container.resolve(TOKENS.SeparationEngine), separation);
    assert.equal(container.resolve(TOKENS.AvatarRenderer), avatarRenderer);
    assert.equal(container.resolve(TOKENS.FaceDetector), faceDetector);
    assert.equal(container.resolve(TOKENS.PhotoAvatarRenderer), photoRenderer);
    assert.equal(container.resolve(TOKENS.Options), instance.options);
    assert.equal(container.resolve(TOKENS.Logger), logger);
    assert.ok(lines.includes('engines'), 'the services log through the logger in the container');
    assert.equal(container.resolve(TOKENS.Metrics), noMetrics);
  });
});
