import type { Readable } from 'node:stream';
import type { BlobRef } from '../../domain/job.js';
import type { JobService } from '../jobs/job-service.js';
import type { AvatarCatalogue } from '../avatars/avatar-catalogue.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { BlobLinkSigner, LinkBuilder } from '../links.js';
import type { HeaderMap } from '../http/types.js';
import type { PagingLimits } from '../schemas/common.js';
import type { Idempotency } from '../idempotency/idempotency.js';
import type { PhotoAvatarService } from '../avatars/photo-avatar-service.js';
import type { VideoAvatarService } from '../avatars/video-avatar-service.js';
import type { OwnedAvatars } from '../avatars/owned-avatars.js';
import type { InputPort, ProbedInput } from '../jobs/input-port.js';
import type { ResolvedOptions } from '../options.js';
import type { KindRegistry } from '../kinds/registry.js';

/** Receives a multipart upload into the blob store; throws an `ApiError` on bad input. */
export interface UploadPort {
  receive(
    body: Readable,
    headers: HeaderMap,
    owner: string,
  ): Promise<{ blob: BlobRef; fileName: string; sha256: string; createdAt: string; expiresAt: string; fields: Record<string, string> }>;
}

/** What the route handlers use. Built once per middleware instance. */
export interface ApiDeps {
  jobs: JobService;
  catalogue: AvatarCatalogue;
  blobs: BlobStore;
  signer: BlobLinkSigner;
  uploads: UploadPort;
  /** The creation of photo avatars (POST /v2/avatar). */
  photoAvatars: PhotoAvatarService;
  /** The avatars keys made (the key's own in GET /v2/avatar, DELETE /v2/avatar/:uid). */
  ownedAvatars: OwnedAvatars;
  /** Receives a portrait (POST /v2/avatar multipart), limited to `limits.maxPhotoBytes`. */
  photoUploads: UploadPort;
  /** Resolves an `imageUrl` of POST /v2/avatar like a job input, limited to `limits.maxPhotoBytes`. */
  photoInputs: InputPort;
  /** The creation of video avatars (POST /v2/avatar with a clip). */
  videoAvatars: VideoAvatarService;
  /** Receives the file of POST /v2/avatar (a portrait or a clip), limited to the larger of their limits. */
  avatarUploads: UploadPort;
  /**
   * Resolves a `videoUrl` of POST /v2/avatar like a job input, limited to `limits.maxAvatarVideoBytes`; its probe
   * goes on to the video avatar service, which does not probe the clip again.
   */
  videoInputs: InputPort<ProbedInput>;
  /** `limits.maxPhotoBytes`: a portrait received through {@link avatarUploads} larger than this is 413. */
  maxPhotoBytes: number;
  paging: PagingLimits;
  maxJsonBytes: number;
  /** The instance's job kinds: each with an API resource gets its routes. */
  kinds: KindRegistry;
  /** Link builder for a request's base URL. */
  links(baseUrl: string): LinkBuilder;
  /** The OpenAPI document. */
  openapi(): object;
  /** Resolves when started and the stores answer; throws a 503 `ApiError` naming what is not ready. */
  readiness(): Promise<void>;
  /** Replays answers of requests that carry an `Idempotency-Key`. */
  idempotency: Idempotency;
  /** The Prometheus metrics and where they are served, when the `metrics` option is on. */
  metrics?: { path: string; scrape(): Promise<{ contentType: string; text: string }> };
}

/**
 * The part of {@link ApiDeps} that the options alone give: all that the route table reads while it is built
 * (the rest is read by handlers, once started). `scrape` serves the metrics when they are on.
 */
export function optionDeps(resolved: ResolvedOptions, scrape: () => Promise<{ contentType: string; text: string }>): Pick<ApiDeps, 'paging' | 'maxJsonBytes' | 'metrics' | 'kinds' | 'maxPhotoBytes'> {
  return {
    paging: { defaultPerPage: resolved.limits.defaultPerPage, maxPerPage: resolved.limits.maxPerPage },
    maxJsonBytes: resolved.limits.maxJsonBytes,
    maxPhotoBytes: resolved.limits.maxPhotoBytes,
    kinds: resolved.kinds,
    metrics: resolved.metrics ? { path: resolved.metrics.path, scrape } : undefined,
  };
}

/** The paginated envelope (SPEC §2.5). */
export function envelope<T>(page: number, perPage: number, total: number, data: T[]) {
  return { page, perPage, total, nextPage: page * perPage < total ? page + 1 : null, data };
}
