import { join, resolve } from 'node:path';
import { Lifecycle, instanceCachingFactory, type ClassProvider, type DependencyContainer } from 'tsyringe';
import type { ResolvedOptions } from '../options.js';
import type { Logger } from '../../domain/logger.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { JobEvents } from '../../storage/job-events.js';
import { OwnedDirs } from '../../storage/owned-dirs.js';
import { presigner } from '../../storage/blob-files.js';
import type { UrlSigner } from '../../storage/url-signer.js';
import { probeMedia, type MediaBinaries } from '../../inference/media/index.js';
import { FINAL_STATUSES } from '../../domain/state-machine.js';
import { faceDetectionQueue, PhotoAvatarService } from '../avatars/photo-avatar-service.js';
import { mediaCheckQueue } from '../input/media-checks.js';
import { VideoAvatarService } from '../avatars/video-avatar-service.js';
import { OwnedAvatars } from '../avatars/owned-avatars.js';
import { AvatarCatalogue } from '../avatars/avatar-catalogue.js';
import { Avatars } from '../avatars/avatar-directory.js';
import type { KindServices } from '../kinds/kind-spec.js';
import { InputResolver } from '../input/resolve-input.js';
import { JobRunner } from '../jobs/job-runner.js';
import type { ProbeFn } from '../jobs/output-check.js';
import type { JobScheduling } from '../jobs/job-ports.js';
import { DangerousFlag } from '../jobs/dangerous-flag.js';
import { JobService } from '../jobs/job-service.js';
import { Recovery } from '../maintenance/recovery.js';
import { Sweeper, type SweepStep } from '../maintenance/sweeper.js';
import type { MetricsRecorder } from '../metrics/metrics-recorder.js';
import { ObservedJobStore } from '../metrics/observed-job-store.js';
import { LinkBuilder } from '../links.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { webhookUrlCheck, type WebhookUrlCheck } from '../webhooks/webhook-url.js';
import { Idempotency } from '../idempotency/idempotency.js';
import { MultipartUploadPort, ResolverInputPort } from './input-port-adapter.js';

/**
 * Registers the instance's parts on its container under {@link SERVICES}, beside the backends under `TOKENS` (whoever
 * registered those) and the parts' settings (`registerSettings`). A part is a class that declares what it needs
 * with `@inject(TOKEN)` on each constructor parameter, registered with `useClass` as a singleton of this container
 * (each instance has its own: two instances never share a part), made when first resolved. Values that are not such a
 * class (a decorated store, a function, a port limited to one size) are factories here, each made once.
 *
 * The graph has no cycle at construction: the job service ends jobs through the runner (`JobEnding` is the runner),
 * and the avatars, which the kinds read, schedule their preparations through `JobScheduling`, a port that resolves
 * the job service when first called.
 */
export function registerServices(container: DependencyContainer): void {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const part = <T>(token: symbol, useClass: ClassProvider<T>['useClass']) => container.register<T>(token, { useClass }, { lifecycle: Lifecycle.Singleton });
  const made = <T>(token: symbol, make: (c: DependencyContainer) => T) => container.register<T>(token, { useFactory: instanceCachingFactory<T>(make) });
  const blobsOf = (c: DependencyContainer) => c.resolve<BlobStore>(TOKENS.BlobStore);

  // The store's transitions are watched, so the job runner and the service carry no metrics or announcement code:
  // whoever ends a job (a cancel, recovery, a deadline) or takes it over, the store's wrapper announces it.
  made(SERVICES.JobStore, (c) => {
    const events = c.resolve<JobEvents>(TOKENS.JobEvents);
    const metrics = c.resolve<MetricsRecorder>(TOKENS.Metrics);
    return new ObservedJobStore(c.resolve<JobStore>(TOKENS.JobStore), options.metrics ? metrics : undefined, (job, to, from) => {
      if (FINAL_STATUSES.includes(to) || (to === 'ongoing' && from.includes('ongoing'))) void events.announce(job.uid);
    });
  });
  // Job and avatar work folders live in the data dir, named after their process, so a later start removes a crashed one's.
  made(SERVICES.WorkDirs, () => new OwnedDirs(join(resolve(options.dataDir), 'work')));
  // Webhook payloads carry links as GET answers them: presigned by the blob store where it can (S3), else signed here.
  made(SERVICES.LinkFactory, (c) => {
    const signer = c.resolve<UrlSigner>(TOKENS.UrlSigner);
    const presign = presigner(blobsOf(c));
    return (baseUrl: string) => new LinkBuilder(signer, baseUrl, options.retention.linkTtlMs, Date.now, presign);
  });
  made<ProbeFn>(SERVICES.MediaProbe, (c) => {
    const binaries = c.resolve<MediaBinaries>(TOKENS.MediaBinaries);
    return (path, signal) => probeMedia(path, binaries, { signal });
  });

  // Avatars: the catalogue's and the keys' own, their assets made by `avatarPrepare` jobs.
  part(SERVICES.Catalogue, AvatarCatalogue);
  part(SERVICES.OwnedAvatars, OwnedAvatars);
  part(SERVICES.Avatars, Avatars);
  made(SERVICES.FaceDetections, () => faceDetectionQueue(options.limits.maxQueuedPhotosPerKey));
  made(SERVICES.MediaChecks, () => mediaCheckQueue(options.concurrency.maxQueuedRequestsPerKey));
  part(SERVICES.PhotoAvatars, PhotoAvatarService);
  part(SERVICES.VideoAvatars, VideoAvatarService);
  made<JobScheduling>(SERVICES.JobScheduling, (c) => {
    const service = () => c.resolve<JobService>(SERVICES.JobService);
    return { schedule: (job) => service().schedule(job), end: (uid, code, message) => service().end(uid, code, message) };
  });

  // Jobs: what the kinds may use (engines are looked up in the container when a job runs), the runner, the service.
  made<KindServices>(SERVICES.KindServices, (c) => ({
    options,
    blobs: blobsOf(c),
    logger,
    avatars: c.resolve(SERVICES.Avatars),
    engine: <T>(token: symbol) => (c.isRegistered(token, true) ? c.resolve<T>(token) : undefined),
  }));
  part(SERVICES.JobRunner, JobRunner);
  container.register(SERVICES.JobEnding, { useToken: SERVICES.JobRunner });
  part(SERVICES.DangerousFlag, DangerousFlag);
  // Webhooks need a secret to sign with (and then have their outbox: checked at start-up); without it, `webhookUrl` is refused.
  container.register<WebhookUrlCheck>(SERVICES.WebhookUrlCheck, {
    useValue: webhookUrlCheck({ enabled: options.webhooks.secret !== undefined, allowPrivateAddresses: options.allowPrivateUrls }),
  });
  part(SERVICES.JobService, JobService);
  if (options.webhooks.secret) part(SERVICES.Webhooks, WebhookDispatcher);
  part(SERVICES.Idempotency, Idempotency);

  // Inputs: URLs resolved (downloaded, probed) and multipart uploads, each port with its own size limit.
  made(
    SERVICES.InputResolver,
    (c) =>
      new InputResolver({
        blobs: blobsOf(c),
        binaries: c.resolve(TOKENS.MediaBinaries),
        allowPrivateAddresses: options.allowPrivateUrls,
        fetchTimeoutMs: options.limits.downloadTimeoutMs,
        downloadRetentionMs: options.retention.resultsMs,
        scratchDirs: c.resolve(SERVICES.WorkDirs),
        checks: c.resolve(SERVICES.MediaChecks),
        logger,
      }),
  );
  const inputs = (maxBytes: number, option: string) => (c: DependencyContainer) => new ResolverInputPort(c.resolve(SERVICES.InputResolver), maxBytes, option);
  made(SERVICES.JobInputs, inputs(options.limits.maxDownloadBytes, 'limits.maxDownloadBytes'));
  made(SERVICES.PhotoInputs, inputs(options.limits.maxPhotoBytes, 'limits.maxPhotoBytes'));
  made(SERVICES.VideoInputs, inputs(options.limits.maxAvatarVideoBytes, 'limits.maxAvatarVideoBytes'));
  const uploads = (maxBytes: number, option: string) => (c: DependencyContainer) => new MultipartUploadPort(blobsOf(c), maxBytes, options.retention.uploadsMs, logger, option);
  made(SERVICES.Uploads, uploads(options.limits.maxUploadBytes, 'limits.maxUploadBytes'));
  made(SERVICES.PhotoUploads, uploads(options.limits.maxPhotoBytes, 'limits.maxPhotoBytes'));
  // A file of POST /v2/avatar is a portrait or a clip, told apart by its content once received: the larger limit
  // holds while it arrives, the portrait's is checked after.
  const { maxPhotoBytes, maxAvatarVideoBytes } = options.limits;
  made(SERVICES.AvatarUploads, maxAvatarVideoBytes >= maxPhotoBytes ? uploads(maxAvatarVideoBytes, 'limits.maxAvatarVideoBytes') : uploads(maxPhotoBytes, 'limits.maxPhotoBytes'));

  // Maintenance: retention and recovery on each sweep, then the catalogue's preparations not stored yet.
  part(SERVICES.Recovery, Recovery);
  made<SweepStep[]>(SERVICES.SweepSteps, (c) => [
    { name: 'catalogue avatar jobs', run: () => c.resolve<AvatarCatalogue>(SERVICES.Catalogue).scheduleMissing() },
  ]);
  part(SERVICES.Sweeper, Sweeper);
}
