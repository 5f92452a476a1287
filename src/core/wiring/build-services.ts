import { join, resolve } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { OptionsError, type ResolvedOptions, type VirtualAnchorOptions } from '../options.js';
import { missingPorts } from './missing-ports.js';
import type { Logger } from '../../domain/logger.js';
import { TOKENS } from '../tokens.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { createJobStore } from '../../storage/create-job-store.js';
import type { WebhookOutbox } from '../../storage/webhook-outbox.js';
import type { IdempotencyStore } from '../../storage/idempotency-store.js';
import { createIdempotencyStore } from '../../storage/create-idempotency-store.js';
import { createBlobStore } from '../../storage/create-blob-store.js';
import { OwnedDirs } from '../../storage/owned-dirs.js';
import { UrlSigner, loadOrCreateSecret } from '../../storage/url-signer.js';
import { probeMedia, resolveMediaBinaries, type MediaBinaries } from '../../inference/media/index.js';
import type { AvatarAssetRenderer, FaceDetector, LipSyncEngine, PhotoAvatarAssetRenderer, SeparationEngine } from '../../domain/engines.js';
import type { AvatarStore } from '../../storage/avatar-store.js';
import { createAvatarStore } from '../../storage/create-avatar-store.js';
import { faceDetectionQueue, PhotoAvatarService } from '../avatars/photo-avatar-service.js';
import { PhotoAvatarSettler } from '../avatars/photo-avatar-settler.js';
import type { AvatarDefinition, AvatarDefinitionInput } from '../../domain/avatar/definition.js';
import { loadAvatarDefinitions } from '../../inference/avatar/catalogue-definitions.js';
import { InputResolver } from '../input/resolve-input.js';
import { Avatars } from '../avatars/avatar-directory.js';
import type { KindServices } from '../kinds/kind-spec.js';
import { AvatarCatalogue } from '../avatars/avatar-catalogue.js';
import { JobRunner } from '../jobs/job-runner.js';
import { DANGEROUS_FLAG_MESSAGE, DangerousFlag } from '../jobs/dangerous-flag.js';
import type { Delivery, JobQueue } from '../../queue/job-queue.js';
import { createJobQueue } from '../../queue/create-job-queue.js';
import { JobService } from '../jobs/job-service.js';
import { Recovery } from '../maintenance/recovery.js';
import { Sweeper } from '../maintenance/sweeper.js';
import { removeCrashLeftovers } from '../maintenance/leftovers.js';
import { MultipartUploadPort, ResolverInputPort } from './input-port-adapter.js';
import { builtInEngines } from './built-in-engines.js';
import type { MetricsRecorder } from '../metrics/metrics-recorder.js';
import { ObservedJobStore } from '../metrics/observed-job-store.js';
import { LocalJobEvents, type JobEvents } from '../../storage/job-events.js';
import { RedisJobEvents } from '../../storage/redis-job-events.js';
import { FINAL_STATUSES } from '../../domain/state-machine.js';
import { LinkBuilder } from '../links.js';
import { DELIVERY_LIMITS, WebhookDispatcher } from '../webhooks/dispatcher.js';
import { webhookUrlCheck } from '../webhooks/webhook-url.js';
import { Idempotency } from '../idempotency/idempotency.js';

const DAY_MS = 24 * 3_600_000;

/** The running parts of one instance. */
export interface Services {
  /** The job store as the core uses it (observed by the metrics when they are on). */
  jobStore: JobStore;
  jobs: JobService;
  catalogue: AvatarCatalogue;
  blobs: BlobStore;
  signer: UrlSigner;
  uploads: MultipartUploadPort;
  idempotency: Idempotency;
  photoAvatars: PhotoAvatarService;
  /** Receives portraits (POST /v2/avatar), limited to `limits.maxPhotoBytes`. */
  photoUploads: MultipartUploadPort;
  /** Resolves `imageUrl` of POST /v2/avatar, limited to `limits.maxPhotoBytes`. */
  photoInputs: ResolverInputPort;
  /** Starts the sweeper, the queue's consumer (where engines run), webhooks and avatar asset generation. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Builds the object graph of one instance. Every part it uses is resolved from the instance's tsyringe
 * child container under {@link TOKENS}: the options, logger and metrics recorder the instance registered
 * at creation, and each backend, where a value the operator registered first, or passed in
 * `options.backends`, wins over the built-in default.
 */
export async function buildServices(container: DependencyContainer, raw: VirtualAnchorOptions): Promise<Services> {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const metrics = container.resolve<MetricsRecorder>(TOKENS.Metrics);
  const dataDir = resolve(options.dataDir);
  /** Tokens whose value this instance made itself (not given in `options.backends` or registered by the host): it closes those only. */
  const made = new Set<symbol>();
  const provide = async <T>(token: symbol, given: T | undefined, make: () => T | Promise<T>): Promise<T> => {
    if (!container.isRegistered(token, false)) {
      const value = given ?? (await make());
      // tsyringe cannot hold `undefined`: an engine the package does not have stays unregistered.
      if (value === undefined) return value;
      if (given === undefined) made.add(token);
      container.register<T>(token, { useValue: value });
    }
    return container.resolve<T>(token);
  };
  const backends = raw.backends ?? {};
  /** Where the host gave the backend of `token` (its registration, or `backends[option]`); `undefined` when it did not. */
  const givenAt = (token: symbol, option: keyof NonNullable<VirtualAnchorOptions['backends']>): string | undefined =>
    container.isRegistered(token, false) ? `TOKENS.${option[0]!.toUpperCase()}${option.slice(1)}` : backends[option] !== undefined ? `backends.${option}` : undefined;
  // A feature that is on never goes silently off for want of its port: checked before anything is made.
  const portIssues = missingPorts(
    { jobStore: givenAt(TOKENS.JobStore, 'jobStore'), webhookOutbox: givenAt(TOKENS.WebhookOutbox, 'webhookOutbox'), idempotencyStore: givenAt(TOKENS.IdempotencyStore, 'idempotencyStore') },
    options.webhooks.secret !== undefined,
  );
  if (portIssues.length > 0) throw new OptionsError(portIssues);

  const redis = { redisUrl: options.redis, namespace: options.redisNamespace, redisTimeouts: options.redisTimeouts, logger };
  /** The outbox of the job store this instance made (a host's store comes with the host's outbox). */
  let madeOutbox: WebhookOutbox | undefined;
  const storage = await provide<JobStore>(TOKENS.JobStore, backends.jobStore, () => {
    const made = createJobStore({ ...redis, recordRetentionMs: options.retention.recordsMs });
    madeOutbox = made.outbox;
    return made;
  });
  const outbox = await provide<WebhookOutbox | undefined>(TOKENS.WebhookOutbox, backends.webhookOutbox, () => madeOutbox);
  const idempotencyStore = await provide<IdempotencyStore>(TOKENS.IdempotencyStore, backends.idempotencyStore, () => createIdempotencyStore(redis));
  // Every process sharing the store hears of jobs ended or taken over anywhere (Redis pub/sub; within one process
  // an EventEmitter), so the process running such a job stops its engine at once.
  const events = await provide<JobEvents>(TOKENS.JobEvents, backends.jobEvents, () =>
    options.redis
      ? new RedisJobEvents({ url: options.redis, namespace: options.redisNamespace, timeouts: options.redisTimeouts, logger })
      : localEventsOf(storage),
  );
  // A shared in-process emitter (one per memory store) has nothing to release and may serve other instances.
  const ownsEvents = events instanceof RedisJobEvents && made.has(TOKENS.JobEvents);
  // The store's transitions are watched, so the job runner and the service carry no metrics or announcement code:
  // whoever ends a job (a cancel, recovery, a deadline) or takes it over, the store's wrapper announces it.
  const jobStore: JobStore = new ObservedJobStore(storage, options.metrics ? metrics : undefined, (job, to, from) => {
    if (FINAL_STATUSES.includes(to) || (to === 'ongoing' && from.includes('ongoing'))) void events.announce(job.uid);
  });
  const blobs = await provide<BlobStore>(TOKENS.BlobStore, backends.blobStore, () => createBlobStore({ dataDir, s3: options.s3, logger }));
  const secret = options.signingSecret ? Buffer.from(options.signingSecret) : await loadOrCreateSecret(dataDir);
  const signer = await provide(TOKENS.UrlSigner, undefined, () => new UrlSigner(secret));
  const binaries = await provide<MediaBinaries>(TOKENS.MediaBinaries, undefined, () =>
    resolveMediaBinaries({ ffmpegPath: options.ffmpegPath, ffprobePath: options.ffprobePath }),
  );
  const builtIn = builtInEngines(binaries, logger, options.limits.maxSeparationSec);
  // An `api` process runs no engine: the built-in ones are not even loaded (no onnxruntime, no canvas).
  const runsEngines = options.role !== 'api';
  const optional = async <T>(token: symbol, given: T | false | undefined, make: () => Promise<T | undefined>) =>
    given === false || !runsEngines ? undefined : provide<T | undefined>(token, given, make);
  const lipSync = await optional<LipSyncEngine>(TOKENS.LipSyncEngine, backends.lipSync, builtIn.lipSync);
  const separation = await optional<SeparationEngine>(TOKENS.SeparationEngine, backends.separation, builtIn.separation);
  const avatarRenderer = await optional<AvatarAssetRenderer>(TOKENS.AvatarRenderer, backends.avatarRenderer, builtIn.avatarRenderer);
  // Every process that serves the API finds faces (creation answers at once); only engine processes render.
  const faceDetector =
    backends.faceDetector === false ? undefined : await provide<FaceDetector | undefined>(TOKENS.FaceDetector, backends.faceDetector, builtIn.faceDetector);
  const photoRenderer = await optional<PhotoAvatarAssetRenderer>(TOKENS.PhotoAvatarRenderer, backends.photoRenderer, builtIn.photoRenderer);
  const avatarStore = await provide<AvatarStore>(TOKENS.AvatarStore, backends.avatarStore, () => createAvatarStore(redis));
  const definitions = await provide<AvatarDefinition[]>(TOKENS.AvatarDefinitions, undefined, () =>
    loadAvatarDefinitions({
      builtIn: raw.avatars?.builtIn ?? true,
      directory: raw.avatars?.directory,
      definitions: (raw.avatars?.definitions ?? []) as AvatarDefinitionInput[],
    }),
  );
  logger.info('engines', { role: options.role, lipSync: !!lipSync, separation: !!separation, ffmpeg: binaries.ffmpegPath });
  const queue = await provide<JobQueue>(TOKENS.JobQueue, backends.queue, () =>
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

  // Job and avatar work folders live in the data dir, named after their process, so a later start removes a crashed one's.
  const workDirs = new OwnedDirs(join(dataDir, 'work'));
  await removeCrashLeftovers(blobs, workDirs, logger);
  const catalogue = new AvatarCatalogue(definitions, blobs, avatarRenderer, logger, workDirs);
  const kinds = options.kinds;
  // What the job kinds may use to create and run their jobs; engines are looked up in the container when a job runs.
  const services: KindServices = {
    options,
    blobs,
    logger,
    avatars: new Avatars(catalogue, avatarStore),
    engine: <T>(token: symbol) => (container.isRegistered(token, true) ? container.resolve<T>(token) : undefined),
  };
  const runner: JobRunner = new JobRunner(
    jobStore,
    blobs,
    { kinds, services, blobs, probe: (path, signal) => probeMedia(path, binaries, { signal }), provisionalExpiryMs: options.retention.resultsMs, logger },
    workDirs,
    {
      resultsMs: options.retention.resultsMs,
      heartbeatMs: heartbeatInterval(options.retention.staleJobMs),
      timeout: { baseMs: options.limits.jobTimeoutMs, perInputSecondMs: options.limits.jobTimeoutPerInputSecondMs },
      maxAttempts: options.maxAttempts,
    },
    logger,
    (job): Promise<void> => settler.settle(job),
    events,
  );
  const webhookSecret = options.webhooks.secret;
  // Webhooks need a secret to sign with (and then have their outbox: checked above); without it, `webhookUrl` is refused.
  const webhooks =
    webhookSecret && outbox
      ? new WebhookDispatcher(
          jobStore,
          outbox,
          (baseUrl) => new LinkBuilder(signer, baseUrl, options.retention.linkTtlMs),
          metrics,
          logger,
          {
            secret: webhookSecret,
            pollMs: options.webhooks.pollMs,
            retryDelaysMs: options.webhooks.retryDelaysMs,
            timeoutMs: options.webhooks.timeoutMs,
            ...DELIVERY_LIMITS,
            allowPrivateAddresses: options.allowPrivateUrls,
            kinds: options.kinds,
          },
        )
      : undefined;
  const idempotency = new Idempotency(
    idempotencyStore,
    // A creation may download its inputs (up to the download timeout) before answering: the reservation outlasts that.
    { ttlMs: DAY_MS, reserveMs: Math.max(300_000, 3 * options.limits.downloadTimeoutMs), waitMs: 10_000, pollMs: 100 },
    logger,
  );
  const dangerous = new DangerousFlag(jobStore, options.dangerousFlagDelayMs, logger, (uid) => runner.fail(uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE));
  const resolver = new InputResolver({
    blobs,
    binaries,
    allowPrivateAddresses: options.allowPrivateUrls,
    fetchTimeoutMs: options.limits.downloadTimeoutMs,
    downloadRetentionMs: options.retention.resultsMs,
    scratchDirs: workDirs,
    logger,
  });
  const jobs: JobService = new JobService(
    jobStore,
    blobs,
    new ResolverInputPort(resolver, options.limits.maxDownloadBytes, 'limits.maxDownloadBytes'),
    queue,
    dangerous,
    kinds,
    services,
    logger,
    {
      checkWebhookUrl: webhookUrlCheck({ enabled: webhooks !== undefined, allowPrivateAddresses: options.allowPrivateUrls }),
      end: (uid, code, message) => runner.fail(uid, code, message),
    },
  );
  const settler: PhotoAvatarSettler = new PhotoAvatarSettler(avatarStore, jobStore, blobs, jobs, options.retention.staleJobMs, logger);
  const detections = faceDetectionQueue(options.limits.maxQueuedPhotosPerKey);
  const photoAvatars: PhotoAvatarService = new PhotoAvatarService(avatarStore, blobs, jobs, faceDetector, workDirs, logger, detections, (uid) => settler.settleDeleted(uid));
  const recovery = new Recovery(jobStore, queue, runner, dangerous, options.retention.staleJobMs, options.dangerousFlagDelayMs, logger, kinds);
  const sweeper = new Sweeper(blobs, recovery, options.retention.sweepIntervalMs, logger, jobStore, [
    { name: 'photo avatar recovery', run: () => settler.sweep() },
  ]);
  const uploads = new MultipartUploadPort(blobs, options.limits.maxUploadBytes, options.retention.uploadsMs, logger, 'limits.maxUploadBytes');
  const photoUploads = new MultipartUploadPort(blobs, options.limits.maxPhotoBytes, options.retention.uploadsMs, logger, 'limits.maxPhotoBytes');
  const photoInputs = new ResolverInputPort(resolver, options.limits.maxPhotoBytes, 'limits.maxPhotoBytes');

  return {
    jobStore,
    jobs,
    catalogue,
    blobs,
    signer,
    uploads,
    idempotency,
    photoAvatars,
    photoUploads,
    photoInputs,
    start() {
      sweeper.start();
      webhooks?.start();
      if (runsEngines) {
        const handlers = { run: (uid: string, delivery: Delivery) => runner.run(uid, delivery) };
        queue.start(handlers).catch((error: unknown) => logger.error('could not start consuming the job queue', { error: String(error) }));
      } else catalogue.watchForAssets(ASSET_RECHECK_MS);
      void catalogue.start();
    },
    async close() {
      await sweeper.close();
      dangerous.close();
      await webhooks?.close();
      await catalogue.close();
      const closing = queue.close();
      // A queue that retries hands running jobs to another worker; otherwise they end in error (`shutdown`).
      await runner.abortAll('the service is shutting down', { handBack: queue.capabilities.retries });
      await closing;
      if (ownsEvents) await events.close();
      // What the host gave (an option or a registration on the container) is the host's to close.
      if (made.has(TOKENS.JobStore)) await jobStore.close();
      if (made.has(TOKENS.IdempotencyStore)) await idempotencyStore.close();
      if (made.has(TOKENS.AvatarStore)) await avatarStore.close();
      if (made.has(TOKENS.BlobStore)) await blobs.close?.();
    },
  };
}

/** One in-process {@link JobEvents} per store object: instances sharing a memory store in one process hear each other. */
const localEvents = new WeakMap<JobStore, LocalJobEvents>();

function localEventsOf(store: JobStore): LocalJobEvents {
  let events = localEvents.get(store);
  if (!events) localEvents.set(store, (events = new LocalJobEvents()));
  return events;
}

/** How often a process that renders no avatar assets (role `api`) looks for the assets a worker stored. */
const ASSET_RECHECK_MS = 5_000;

/**
 * The BullMQ lock (and per-key lease) of a running job: a quarter of `staleJobMs`, between 1 s and 30 s,
 * so BullMQ hands a dead worker's job to another worker well before recovery would call it stale.
 */
function queueLockMs(staleJobMs: number): number {
  return Math.max(1_000, Math.min(30_000, Math.floor(staleJobMs / 4)));
}

/** A running job's heartbeat: eight per `staleJobMs` (so a few lost writes never look like a dead process), at most every 15 s. */
function heartbeatInterval(staleJobMs: number): number {
  return Math.max(50, Math.min(15_000, Math.floor(staleJobMs / 8)));
}
