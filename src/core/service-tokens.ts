/**
 * Tokens of the instance's own parts in its container, beside the public {@link TOKENS} of the backends. Internal:
 * a host replaces backends, not these. Each is registered once per start-up by `registerServices` (a singleton of
 * the instance's container) and resolved when something needs it.
 */
export const SERVICES = {
  /** The job store as the core uses it (`ObservedJobStore`: metrics and job announcements). */
  JobStore: Symbol('virtual-anchor.service.JobStore'),
  /** The job store the instance made (`MemoryJobStore` or `RedisJobStore`), whose `outbox` is the default outbox. */
  BuiltInJobStore: Symbol('virtual-anchor.service.BuiltInJobStore'),
  /** Work folders of jobs and avatar assets (`OwnedDirs`). */
  WorkDirs: Symbol('virtual-anchor.service.WorkDirs'),
  /** `(baseUrl) => LinkBuilder`: signed links to files, for webhook payloads. */
  LinkFactory: Symbol('virtual-anchor.service.LinkFactory'),
  Catalogue: Symbol('virtual-anchor.service.Catalogue'),
  /** What the job kinds may use to create and run their jobs (`KindServices`). */
  KindServices: Symbol('virtual-anchor.service.KindServices'),
  JobRunner: Symbol('virtual-anchor.service.JobRunner'),
  JobService: Symbol('virtual-anchor.service.JobService'),
  DangerousFlag: Symbol('virtual-anchor.service.DangerousFlag'),
  InputResolver: Symbol('virtual-anchor.service.InputResolver'),
  /** The webhook sender, registered only when `webhooks.secret` is set. */
  Webhooks: Symbol('virtual-anchor.service.Webhooks'),
  WebhookSettings: Symbol('virtual-anchor.service.WebhookSettings'),
  Idempotency: Symbol('virtual-anchor.service.Idempotency'),
  IdempotencySettings: Symbol('virtual-anchor.service.IdempotencySettings'),
  PhotoAvatars: Symbol('virtual-anchor.service.PhotoAvatars'),
  /** The avatars keys make (`OwnedAvatars`): their records, their preparations, their deletion. */
  OwnedAvatars: Symbol('virtual-anchor.service.OwnedAvatars'),
  Recovery: Symbol('virtual-anchor.service.Recovery'),
  Sweeper: Symbol('virtual-anchor.service.Sweeper'),
  /** Multipart uploads of `POST /v1/uploads` (`MultipartUploadPort`, `limits.maxUploadBytes`). */
  Uploads: Symbol('virtual-anchor.service.Uploads'),
  /** Portrait uploads of `POST /v2/avatar` (`limits.maxPhotoBytes`). */
  PhotoUploads: Symbol('virtual-anchor.service.PhotoUploads'),
  /** `imageUrl` of `POST /v2/avatar` (`ResolverInputPort`, `limits.maxPhotoBytes`). */
  PhotoInputs: Symbol('virtual-anchor.service.PhotoInputs'),
  /** Job inputs by URL (`ResolverInputPort`, `limits.maxDownloadBytes`). */
  JobInputs: Symbol('virtual-anchor.service.JobInputs'),
} as const;
