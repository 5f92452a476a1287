import { resolve } from 'node:path';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { ResolvedOptions, VirtualAnchorOptions } from '../options.js';
import type { Logger } from '../../domain/logger.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import type { MadeHere } from './made-here.js';
import type { JobStore } from '../../storage/job-store.js';
import { createJobStore } from '../../storage/create-job-store.js';
import { createIdempotencyStore } from '../../storage/create-idempotency-store.js';
import { createBlobStore } from '../../storage/create-blob-store.js';
import { createAvatarStore } from '../../storage/create-avatar-store.js';
import { UrlSigner, loadOrCreateSecret } from '../../storage/url-signer.js';
import { LocalJobEvents } from '../../storage/job-events.js';
import { RedisJobEvents } from '../../storage/redis-job-events.js';
import { createJobQueue } from '../../queue/create-job-queue.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../inference/media/index.js';
import type { AvatarDefinitionInput } from '../../domain/avatar/definition.js';
import { loadAvatarDefinitions } from '../../inference/avatar/catalogue-definitions.js';
import { builtInEngines } from './built-in-engines.js';

type Backends = NonNullable<VirtualAnchorOptions['backends']>;

/**
 * Registers every backend under its {@link TOKENS} on the instance's container, unless the host registered one
 * there first: the value given in `options.backends`, else the built-in default. Defaults that can be made on demand
 * are factories (made when first resolved, tracked in `made` with how to close them); those that need waiting for
 * (media binaries, the signing secret, engines, avatar definitions) are made here. A token whose backend is absent
 * (an engine turned off, or not loaded by an `api` process) stays unregistered.
 */
export async function registerBackends(container: DependencyContainer, raw: VirtualAnchorOptions, made: MadeHere): Promise<void> {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const backends: Backends = raw.backends ?? {};
  const dataDir = resolve(options.dataDir);
  const redis = { redisUrl: options.redis, namespace: options.redisNamespace, redisTimeouts: options.redisTimeouts, logger };

  /** The host's value of `token` if it gave one, else `make` (a factory run on first use); nothing when the host registered it. */
  const provide = <T>(token: symbol, given: T | undefined, make: (c: DependencyContainer) => T): void => {
    if (made.byHost(token)) return;
    made.registering(token);
    if (given !== undefined) container.register<T>(token, { useValue: given });
    else container.register<T>(token, { useFactory: instanceCachingFactory<T>(make) });
  };
  /**
   * Like `provide`, for a default made now (it is awaited); `undefined` leaves the token unregistered. Returns the
   * backend under `token` (the host's registration included), or `undefined` when there is none.
   */
  const provideNow = async <T>(token: symbol, given: T | false | undefined, make: () => Promise<T | undefined>): Promise<T | undefined> => {
    if (!made.byHost(token) && given !== false) {
      const value = given ?? (await make());
      // tsyringe cannot hold `undefined`: an engine the package does not have stays unregistered.
      if (value === undefined) return undefined;
      made.registering(token);
      container.register<T>(token, { useValue: value });
    }
    return container.isRegistered(token, true) ? container.resolve<T>(token) : undefined;
  };

  // The built-in job store writes its own outbox; a host's store comes with the host's outbox (checked at start-up).
  container.register(SERVICES.BuiltInJobStore, {
    useFactory: instanceCachingFactory(() => made.track(createJobStore({ ...redis, recordRetentionMs: options.retention.recordsMs }), (store) => store.close())),
  });
  const storeByHost = made.byHost(TOKENS.JobStore) || backends.jobStore !== undefined;
  provide<JobStore>(TOKENS.JobStore, backends.jobStore, (c) => c.resolve(SERVICES.BuiltInJobStore));
  if (!storeByHost || backends.webhookOutbox !== undefined) {
    provide(TOKENS.WebhookOutbox, backends.webhookOutbox, (c) => c.resolve<ReturnType<typeof createJobStore>>(SERVICES.BuiltInJobStore).outbox);
  }
  provide(TOKENS.IdempotencyStore, backends.idempotencyStore, () => made.track(createIdempotencyStore(redis), (store) => store.close()));
  // Every process sharing the store hears of jobs ended or taken over anywhere (Redis pub/sub; within one process an
  // EventEmitter shared by the instances on one memory store, which has nothing to release).
  provide(TOKENS.JobEvents, backends.jobEvents, (c) =>
    options.redis
      ? made.track(new RedisJobEvents({ url: options.redis, namespace: options.redisNamespace, timeouts: options.redisTimeouts, logger }), (events) => events.close())
      : localEventsOf(c.resolve<JobStore>(TOKENS.JobStore)),
  );
  provide(TOKENS.BlobStore, backends.blobStore, () => made.track(createBlobStore({ dataDir, s3: options.s3, logger }), (blobs) => blobs.close?.()));
  provide(TOKENS.AvatarStore, backends.avatarStore, () => made.track(createAvatarStore(redis), (store) => store.close()));
  // The queue is closed by the instance whoever gave it (it must stop consuming before the runner lets go of its jobs).
  provide(TOKENS.JobQueue, backends.queue, () =>
    createJobQueue({
      kind: options.queue,
      redisUrl: options.redis,
      namespace: options.redisNamespace,
      jobsPerKey: options.concurrency.jobsPerKey,
      engines: options.concurrency.engines,
      maxAttempts: options.maxAttempts,
      lockMs: queueLockMs(options.retention.staleJobMs),
      leaseMs: options.retention.staleJobMs,
      logger,
    }),
  );

  await provideNow(TOKENS.UrlSigner, undefined, async () =>
    new UrlSigner(options.signingSecret ? Buffer.from(options.signingSecret) : await loadOrCreateSecret(dataDir)),
  );
  const binaries = (await provideNow<MediaBinaries>(TOKENS.MediaBinaries, undefined, () =>
    resolveMediaBinaries({ ffmpegPath: options.ffmpegPath, ffprobePath: options.ffprobePath }),
  ))!;
  const builtIn = builtInEngines(binaries, logger, options.limits.maxSeparationSec);
  // An `api` process runs no engine: the built-in ones are not even loaded (no onnxruntime, no canvas).
  const runsEngines = options.role !== 'api';
  const engine = <T>(token: symbol, given: T | false | undefined, make: () => Promise<T | undefined>) =>
    provideNow<T>(token, runsEngines ? given : false, make);
  const lipSync = await engine(TOKENS.LipSyncEngine, backends.lipSync, builtIn.lipSync);
  const separation = await engine(TOKENS.SeparationEngine, backends.separation, builtIn.separation);
  await engine(TOKENS.AvatarRenderer, backends.avatarRenderer, builtIn.avatarRenderer);
  // Every process that serves the API finds faces (creation answers at once); only engine processes render.
  await provideNow(TOKENS.FaceDetector, backends.faceDetector, builtIn.faceDetector);
  const photoRenderer = await engine(TOKENS.PhotoAvatarRenderer, backends.photoRenderer, builtIn.photoRenderer);
  const videoPreparer = await engine(TOKENS.VideoAvatarPreparer, backends.videoPreparer, builtIn.videoPreparer);
  await provideNow(TOKENS.AvatarDefinitions, undefined, () =>
    loadAvatarDefinitions({
      builtIn: raw.avatars?.builtIn ?? true,
      directory: raw.avatars?.directory,
      definitions: (raw.avatars?.definitions ?? []) as AvatarDefinitionInput[],
    }),
  );
  logger.info('engines', { role: options.role, lipSync: !!lipSync, separation: !!separation, photoRenderer: !!photoRenderer, videoPreparer: !!videoPreparer, ffmpeg: binaries.ffmpegPath });
}

/** One in-process {@link JobEvents} per store object: instances sharing a memory store in one process hear each other. */
const localEvents = new WeakMap<JobStore, LocalJobEvents>();

function localEventsOf(store: JobStore): LocalJobEvents {
  let events = localEvents.get(store);
  if (!events) localEvents.set(store, (events = new LocalJobEvents()));
  return events;
}

/**
 * The BullMQ lock (and per-key lease) of a running job: a quarter of `staleJobMs`, between 1 s and 30 s,
 * so BullMQ hands a dead worker's job to another worker well before recovery would call it stale.
 */
function queueLockMs(staleJobMs: number): number {
  return Math.max(1_000, Math.min(30_000, Math.floor(staleJobMs / 4)));
}
