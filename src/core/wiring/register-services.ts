import { join, resolve } from 'node:path';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { ResolvedOptions } from '../options.js';
import type { Logger } from '../../domain/logger.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { AvatarStore } from '../../storage/avatar-store.js';
import type { JobEvents } from '../../storage/job-events.js';
import { OwnedDirs } from '../../storage/owned-dirs.js';
import type { UrlSigner } from '../../storage/url-signer.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { probeMedia, type MediaBinaries } from '../../inference/media/index.js';
import { FINAL_STATUSES } from '../../domain/state-machine.js';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { faceDetectionQueue, PhotoAvatarService } from '../avatars/photo-avatar-service.js';
import { OwnedAvatars } from '../avatars/owned-avatars.js';
import { AvatarCatalogue } from '../avatars/avatar-catalogue.js';
import { Avatars } from '../avatars/avatar-directory.js';
import type { KindServices } from '../kinds/kind-spec.js';
import { InputResolver } from '../input/resolve-input.js';
import { JobRunner } from '../jobs/job-runner.js';
import { DANGEROUS_FLAG_MESSAGE, DangerousFlag } from '../jobs/dangerous-flag.js';
import { JobService } from '../jobs/job-service.js';
import { Recovery } from '../maintenance/recovery.js';
import { Sweeper } from '../maintenance/sweeper.js';
import type { MetricsRecorder } from '../metrics/metrics-recorder.js';
import { ObservedJobStore } from '../metrics/observed-job-store.js';
import { LinkBuilder } from '../links.js';
import { DELIVERY_LIMITS, WebhookDispatcher, type WebhookDispatcherSettings } from '../webhooks/dispatcher.js';
import { webhookUrlCheck } from '../webhooks/webhook-url.js';
import { Idempotency, type IdempotencySettings } from '../idempotency/idempotency.js';
import { MultipartUploadPort, ResolverInputPort } from './input-port-adapter.js';

const DAY_MS = 24 * 3_600_000;

/**
 * Registers the instance's parts on its container under {@link SERVICES}, each a singleton made when first resolved
 * from the backends under `TOKENS` (whoever registered those). A class that declares its dependencies with
 * `@inject` is resolved as it is (`Idempotency`, `WebhookDispatcher`); the others are built by a factory here that
 * resolves what they need. Parts that need each other at run time (avatars schedule their preparations through the
 * job service, whose kinds read the avatars, and which ends jobs through the runner) resolve the other when called,
 * not when built.
 */
export function registerServices(container: DependencyContainer): void {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const single = <T>(token: symbol, make: (c: DependencyContainer) => T) => container.register<T>(token, { useFactory: instanceCachingFactory<T>(make) });
  /** The backend under `token`, or `undefined` when there is none (an engine turned off). */
  const maybe = <T>(c: DependencyContainer, token: symbol): T | undefined => (c.isRegistered(token, true) ? c.resolve<T>(token) : undefined);
  const blobsOf = (c: DependencyContainer) => c.resolve<BlobStore>(TOKENS.BlobStore);
  const jobsOf = (c: DependencyContainer) => c.resolve<JobStore>(SERVICES.JobStore);
  const runnerOf = (c: DependencyContainer) => c.resolve<JobRunner>(SERVICES.JobRunner);
  const serviceOf = (c: DependencyContainer) => c.resolve<JobService>(SERVICES.JobService);

  // The store's transitions are watched, so the job runner and the service carry no metrics or announcement code:
  // whoever ends a job (a cancel, recovery, a deadline) or takes it over, the store's wrapper announces it.
  single(SERVICES.JobStore, (c) => {
    const events = c.resolve<JobEvents>(TOKENS.JobEvents);
    const metrics = c.resolve<MetricsRecorder>(TOKENS.Metrics);
    return new ObservedJobStore(c.resolve<JobStore>(TOKENS.JobStore), options.metrics ? metrics : undefined, (job, to, from) => {
      if (FINAL_STATUSES.includes(to) || (to === 'ongoing' && from.includes('ongoing'))) void events.announce(job.uid);
    });
  });
  // Job and avatar work folders live in the data dir, named after their process, so a later start removes a crashed one's.
  single(SERVICES.WorkDirs, () => new OwnedDirs(join(resolve(options.dataDir), 'work')));
  single(SERVICES.LinkFactory, (c) => {
    const signer = c.resolve<UrlSigner>(TOKENS.UrlSigner);
    return (baseUrl: string) => new LinkBuilder(signer, baseUrl, options.retention.linkTtlMs);
  });
  // Avatar assets are made by `avatarPrepare` jobs: a process that makes them (it runs engines and can draw catalogue
  // avatars) schedules the catalogue's; any process reads their state.
  single(
    SERVICES.Catalogue,
    (c) =>
      new AvatarCatalogue(
        c.resolve<AvatarDefinition[]>(TOKENS.AvatarDefinitions),
        { get: (uid) => jobsOf(c).get(uid), schedule: (job) => serviceOf(c).schedule(job), delete: (uid) => jobsOf(c).delete(uid) },
        blobsOf(c),
        logger,
        maybe(c, TOKENS.AvatarRenderer) !== undefined,
      ),
  );
  single(
    SERVICES.OwnedAvatars,
    (c) =>
      new OwnedAvatars(
        c.resolve<AvatarStore>(TOKENS.AvatarStore),
        jobsOf(c),
        { schedule: (job) => serviceOf(c).schedule(job), end: (uid, code, message) => serviceOf(c).end(uid, code, message) },
        blobsOf(c),
        options.retention.staleJobMs,
        logger,
      ),
  );
  // What the job kinds may use to create and run their jobs; engines are looked up in the container when a job runs.
  single<KindServices>(SERVICES.KindServices, (c) => ({
    options,
    blobs: blobsOf(c),
    logger,
    avatars: new Avatars(c.resolve(SERVICES.Catalogue), c.resolve(SERVICES.OwnedAvatars)),
    engine: <T>(token: symbol) => maybe<T>(c, token),
  }));
  single(SERVICES.JobRunner, (c) => {
    const binaries = c.resolve<MediaBinaries>(TOKENS.MediaBinaries);
    return new JobRunner(
      jobsOf(c),
      blobsOf(c),
      {
        kinds: options.kinds,
        services: c.resolve(SERVICES.KindServices),
        blobs: blobsOf(c),
        probe: (path, signal) => probeMedia(path, binaries, { signal }),
        provisionalExpiryMs: options.retention.resultsMs,
        logger,
      },
      c.resolve(SERVICES.WorkDirs),
      {
        resultsMs: options.retention.resultsMs,
        heartbeatMs: heartbeatInterval(options.retention.staleJobMs),
        timeout: { baseMs: options.limits.jobTimeoutMs, perInputSecondMs: options.limits.jobTimeoutPerInputSecondMs },
        maxAttempts: options.maxAttempts,
      },
      logger,
      c.resolve(TOKENS.JobEvents),
    );
  });
  // Webhooks need a secret to sign with (and then have their outbox: checked at start-up); without it, `webhookUrl` is refused.
  const secret = options.webhooks.secret;
  if (secret) {
    container.register<WebhookDispatcherSettings>(SERVICES.WebhookSettings, {
      useValue: {
        secret,
        pollMs: options.webhooks.pollMs,
        retryDelaysMs: options.webhooks.retryDelaysMs,
        timeoutMs: options.webhooks.timeoutMs,
        ...DELIVERY_LIMITS,
        allowPrivateAddresses: options.allowPrivateUrls,
        kinds: options.kinds,
      },
    });
    single(SERVICES.Webhooks, (c) => c.resolve(WebhookDispatcher));
  }
  container.register<IdempotencySettings>(SERVICES.IdempotencySettings, {
    // A creation may download its inputs (up to the download timeout) before answering: the reservation outlasts that.
    useValue: { ttlMs: DAY_MS, reserveMs: Math.max(300_000, 3 * options.limits.downloadTimeoutMs), waitMs: 10_000, pollMs: 100 },
  });
  single(SERVICES.Idempotency, (c) => c.resolve(Idempotency));
  single(
    SERVICES.DangerousFlag,
    (c) => new DangerousFlag(jobsOf(c), options.dangerousFlagDelayMs, logger, (uid) => runnerOf(c).fail(uid, 'dangerous_flag', DANGEROUS_FLAG_MESSAGE)),
  );
  single(
    SERVICES.InputResolver,
    (c) =>
      new InputResolver({
        blobs: blobsOf(c),
        binaries: c.resolve(TOKENS.MediaBinaries),
        allowPrivateAddresses: options.allowPrivateUrls,
        fetchTimeoutMs: options.limits.downloadTimeoutMs,
        downloadRetentionMs: options.retention.resultsMs,
        scratchDirs: c.resolve(SERVICES.WorkDirs),
        logger,
      }),
  );
  const inputs = (maxBytes: number, option: string) => (c: DependencyContainer) => new ResolverInputPort(c.resolve(SERVICES.InputResolver), maxBytes, option);
  single(SERVICES.JobInputs, inputs(options.limits.maxDownloadBytes, 'limits.maxDownloadBytes'));
  single(SERVICES.PhotoInputs, inputs(options.limits.maxPhotoBytes, 'limits.maxPhotoBytes'));
  const uploads = (maxBytes: number, option: string) => (c: DependencyContainer) => new MultipartUploadPort(blobsOf(c), maxBytes, options.retention.uploadsMs, logger, option);
  single(SERVICES.Uploads, uploads(options.limits.maxUploadBytes, 'limits.maxUploadBytes'));
  single(SERVICES.PhotoUploads, uploads(options.limits.maxPhotoBytes, 'limits.maxPhotoBytes'));
  single(
    SERVICES.JobService,
    (c) =>
      new JobService(
        jobsOf(c),
        blobsOf(c),
        c.resolve(SERVICES.JobInputs),
        c.resolve(TOKENS.JobQueue),
        c.resolve(SERVICES.DangerousFlag),
        options.kinds,
        c.resolve(SERVICES.KindServices),
        logger,
        {
          checkWebhookUrl: webhookUrlCheck({ enabled: secret !== undefined, allowPrivateAddresses: options.allowPrivateUrls }),
          end: (uid, code, message) => runnerOf(c).fail(uid, code, message),
        },
      ),
  );
  single(
    SERVICES.PhotoAvatars,
    (c) =>
      new PhotoAvatarService(
        c.resolve(SERVICES.OwnedAvatars),
        blobsOf(c),
        maybe(c, TOKENS.FaceDetector),
        c.resolve(SERVICES.WorkDirs),
        logger,
        faceDetectionQueue(options.limits.maxQueuedPhotosPerKey),
      ),
  );
  single(
    SERVICES.Recovery,
    (c) =>
      new Recovery(
        jobsOf(c),
        c.resolve<JobQueue>(TOKENS.JobQueue),
        runnerOf(c),
        c.resolve(SERVICES.DangerousFlag),
        options.retention.staleJobMs,
        options.dangerousFlagDelayMs,
        logger,
        options.kinds,
      ),
  );
  single(
    SERVICES.Sweeper,
    (c) =>
      new Sweeper(blobsOf(c), c.resolve(SERVICES.Recovery), options.retention.sweepIntervalMs, logger, jobsOf(c), [
        { name: 'catalogue avatar jobs', run: () => c.resolve<AvatarCatalogue>(SERVICES.Catalogue).scheduleMissing() },
      ]),
  );
}

/** A running job's heartbeat: eight per `staleJobMs` (so a few lost writes never look like a dead process), at most every 15 s. */
function heartbeatInterval(staleJobMs: number): number {
  return Math.max(50, Math.min(15_000, Math.floor(staleJobMs / 8)));
}
