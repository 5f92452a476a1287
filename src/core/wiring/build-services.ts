import type { DependencyContainer } from 'tsyringe';
import { OptionsError, type ResolvedOptions, type VirtualAnchorOptions } from '../options.js';
import { missingPorts } from './missing-ports.js';
import type { Logger } from '../../domain/logger.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { UrlSigner } from '../../storage/url-signer.js';
import type { PhotoAvatarService } from '../avatars/photo-avatar-service.js';
import type { VideoAvatarService } from '../avatars/video-avatar-service.js';
import type { OwnedAvatars } from '../avatars/owned-avatars.js';
import type { AvatarCatalogue } from '../avatars/avatar-catalogue.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { DangerousFlag } from '../jobs/dangerous-flag.js';
import type { Delivery, JobQueue } from '../../queue/job-queue.js';
import type { JobService } from '../jobs/job-service.js';
import type { Sweeper } from '../maintenance/sweeper.js';
import { removeCrashLeftovers } from '../maintenance/leftovers.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { MultipartUploadPort, ResolverInputPort } from './input-port-adapter.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import type { Idempotency } from '../idempotency/idempotency.js';
import { MadeHere } from './made-here.js';
import { registerBackends } from './register-backends.js';
import { registerSettings } from './register-settings.js';
import { registerServices } from './register-services.js';

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
  /** The avatars keys made: listed, fetched and deleted (their state read from their preparation jobs). */
  ownedAvatars: OwnedAvatars;
  /** Receives portraits (POST /v2/avatar), limited to `limits.maxPhotoBytes`. */
  photoUploads: MultipartUploadPort;
  /** Resolves `imageUrl` of POST /v2/avatar, limited to `limits.maxPhotoBytes`. */
  photoInputs: ResolverInputPort;
  /** The creation of video avatars (POST /v2/avatar with a clip). */
  videoAvatars: VideoAvatarService;
  /** Receives the file of POST /v2/avatar, a portrait or a clip. */
  avatarUploads: MultipartUploadPort;
  /** Resolves `videoUrl` of POST /v2/avatar, limited to `limits.maxAvatarVideoBytes`. */
  videoInputs: ResolverInputPort;
  /** Starts the sweeper, the queue's consumer (where engines run), webhooks and the catalogue's preparations. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Builds the object graph of one instance in its tsyringe child container: checks that every feature that is on
 * has its port, registers the backends (the host's, from its registrations or `options.backends`, else the built-in
 * defaults) and the instance's parts, then resolves the parts. Ownership follows who made a value: the instance
 * closes what it made (tracked as it is made), never what the host gave. A start-up that fails closes what it made
 * so far; a later attempt registers afresh.
 */
export async function buildServices(container: DependencyContainer, raw: VirtualAnchorOptions): Promise<Services> {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const made = new MadeHere(container);
  const backends = raw.backends ?? {};
  /** Where the host gave the backend of `option` (its registration under `token`, or `backends[option]`); `undefined` when it did not. */
  const givenAt = (token: symbol, option: keyof NonNullable<VirtualAnchorOptions['backends']>): string | undefined =>
    made.byHost(token) ? `TOKENS.${option[0]!.toUpperCase()}${option.slice(1)}` : backends[option] !== undefined ? `backends.${option}` : undefined;
  // A feature that is on never goes silently off for want of its port: checked before anything is made.
  const portIssues = missingPorts(
    { jobStore: givenAt(TOKENS.JobStore, 'jobStore'), webhookOutbox: givenAt(TOKENS.WebhookOutbox, 'webhookOutbox'), idempotencyStore: givenAt(TOKENS.IdempotencyStore, 'idempotencyStore') },
    options.webhooks.secret !== undefined,
  );
  if (portIssues.length > 0) throw new OptionsError(portIssues);

  try {
    await registerBackends(container, raw, made);
    registerSettings(container);
    registerServices(container);
    const workDirs = container.resolve<OwnedDirs>(SERVICES.WorkDirs);
    await removeCrashLeftovers(container.resolve<BlobStore>(TOKENS.BlobStore), workDirs, logger);
    return servicesOf(container, made);
  } catch (error) {
    await made.closeAll().catch((failure: unknown) => logger.warn('could not close what a failed start-up made', { error: String(failure) }));
    throw error;
  }
}

/** Resolves the instance's parts, and how to start and stop them. */
function servicesOf(container: DependencyContainer, made: MadeHere): Services {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const logger = container.resolve<Logger>(TOKENS.Logger);
  const get = <T>(token: symbol): T => container.resolve<T>(token);
  const queue = get<JobQueue>(TOKENS.JobQueue);
  const runner = get<JobRunner>(SERVICES.JobRunner);
  const catalogue = get<AvatarCatalogue>(SERVICES.Catalogue);
  const sweeper = get<Sweeper>(SERVICES.Sweeper);
  const dangerous = get<DangerousFlag>(SERVICES.DangerousFlag);
  const webhooks = container.isRegistered(SERVICES.Webhooks) ? get<WebhookDispatcher>(SERVICES.Webhooks) : undefined;
  const runsEngines = options.role !== 'api';
  return {
    jobStore: get(SERVICES.JobStore),
    jobs: get(SERVICES.JobService),
    catalogue,
    blobs: get(TOKENS.BlobStore),
    signer: get(TOKENS.UrlSigner),
    uploads: get(SERVICES.Uploads),
    idempotency: get(SERVICES.Idempotency),
    photoAvatars: get(SERVICES.PhotoAvatars),
    ownedAvatars: get(SERVICES.OwnedAvatars),
    photoUploads: get(SERVICES.PhotoUploads),
    photoInputs: get(SERVICES.PhotoInputs),
    videoAvatars: get(SERVICES.VideoAvatars),
    avatarUploads: get(SERVICES.AvatarUploads),
    videoInputs: get(SERVICES.VideoInputs),
    start() {
      sweeper.start();
      webhooks?.start();
      if (runsEngines) {
        const handlers = { run: (uid: string, delivery: Delivery) => runner.run(uid, delivery) };
        queue.start(handlers).catch((error: unknown) => logger.error('could not start consuming the job queue', { error: String(error) }));
      }
      void catalogue.start();
    },
    async close() {
      // The catalogue first: a sweep's step may be scheduling its preparations, which stops at its next avatar.
      await catalogue.close();
      await sweeper.close();
      dangerous.close();
      await webhooks?.close();
      const closing = queue.close();
      // A queue that retries hands running jobs to another worker; otherwise they end in error (`shutdown`).
      await runner.abortAll('the service is shutting down', { handBack: queue.capabilities.retries });
      await closing;
      // Engines aborted above may still be stopping: their work folders go once they have (bounded).
      await runner.stopped();
      // What the host gave (an option or a registration on the container) is the host's to close.
      await made.closeAll();
    },
  };
}
