/**
 * Tokens of the instance's own parts in its container, beside the public {@link TOKENS} of the backends. Internal:
 * a host replaces backends, not these. Each is registered once per start-up (`registerSettings` and
 * `registerServices`): a part is a singleton of the instance's container, made when first resolved.
 */
export const SERVICES = {
  /** The job store as the core uses it (`ObservedJobStore`: metrics and job announcements). */
  JobStore: Symbol('virtual-anchor.service.JobStore'),
  /** The job store the instance made (`MemoryJobStore` or `RedisJobStore`), whose `outbox` is the default outbox. */
  BuiltInJobStore: Symbol('virtual-anchor.service.BuiltInJobStore'),
  /** The instance's job kinds (`KindRegistry`, from `options.kinds`). */
  Kinds: Symbol('virtual-anchor.service.Kinds'),
  /** Work folders of jobs and avatar assets (`OwnedDirs`). */
  WorkDirs: Symbol('virtual-anchor.service.WorkDirs'),
  /** Probes a file made by an engine before it is stored (`ProbeFn`, ffprobe of the instance's media binaries). */
  MediaProbe: Symbol('virtual-anchor.service.MediaProbe'),
  /** `(baseUrl) => LinkBuilder`: signed links to files, for webhook payloads. */
  LinkFactory: Symbol('virtual-anchor.service.LinkFactory'),
  Catalogue: Symbol('virtual-anchor.service.Catalogue'),
  CatalogueSettings: Symbol('virtual-anchor.service.CatalogueSettings'),
  /** The avatars an owner may animate (`AvatarDirectory`: the catalogue's, then the owner's). */
  Avatars: Symbol('virtual-anchor.service.Avatars'),
  /** What the job kinds may use to create and run their jobs (`KindServices`). */
  KindServices: Symbol('virtual-anchor.service.KindServices'),
  JobRunner: Symbol('virtual-anchor.service.JobRunner'),
  JobRunnerSettings: Symbol('virtual-anchor.service.JobRunnerSettings'),
  /** Ends a job in `error`, stopping its engine when it runs here (`JobEnding`: the job runner). */
  JobEnding: Symbol('virtual-anchor.service.JobEnding'),
  JobService: Symbol('virtual-anchor.service.JobService'),
  /**
   * Stores and queues background jobs, and ends them (`JobScheduling`: the job service, resolved when first called,
   * for the avatars, which the service's kinds read in turn).
   */
  JobScheduling: Symbol('virtual-anchor.service.JobScheduling'),
  /** Checks a creation's `webhookUrl` (`WebhookUrlCheck`; it refuses every URL when webhooks are off). */
  WebhookUrlCheck: Symbol('virtual-anchor.service.WebhookUrlCheck'),
  DangerousFlag: Symbol('virtual-anchor.service.DangerousFlag'),
  DangerousFlagSettings: Symbol('virtual-anchor.service.DangerousFlagSettings'),
  InputResolver: Symbol('virtual-anchor.service.InputResolver'),
  /** The webhook sender, registered only when `webhooks.secret` is set. */
  Webhooks: Symbol('virtual-anchor.service.Webhooks'),
  WebhookSettings: Symbol('virtual-anchor.service.WebhookSettings'),
  Idempotency: Symbol('virtual-anchor.service.Idempotency'),
  IdempotencySettings: Symbol('virtual-anchor.service.IdempotencySettings'),
  PhotoAvatars: Symbol('virtual-anchor.service.PhotoAvatars'),
  /** The creation of video avatars (`VideoAvatarService`). */
  VideoAvatars: Symbol('virtual-anchor.service.VideoAvatars'),
  /** Where portraits wait for the face detector (`FairQueue`: keys take turns, `limits.maxQueuedPhotosPerKey`). */
  FaceDetections: Symbol('virtual-anchor.service.FaceDetections'),
  /** Where input files' checks wait for the media command children (`FairQueue`: keys take turns, `concurrency.maxQueuedRequestsPerKey`). */
  MediaChecks: Symbol('virtual-anchor.service.MediaChecks'),
  /** The avatars keys make (`OwnedAvatars`): their records, their preparations, their deletion. */
  OwnedAvatars: Symbol('virtual-anchor.service.OwnedAvatars'),
  OwnedAvatarSettings: Symbol('virtual-anchor.service.OwnedAvatarSettings'),
  Recovery: Symbol('virtual-anchor.service.Recovery'),
  RecoverySettings: Symbol('virtual-anchor.service.RecoverySettings'),
  Sweeper: Symbol('virtual-anchor.service.Sweeper'),
  SweeperSettings: Symbol('virtual-anchor.service.SweeperSettings'),
  /** More steps each sweep runs after recovery (`SweepStep[]`). */
  SweepSteps: Symbol('virtual-anchor.service.SweepSteps'),
  /** Multipart uploads of `POST /v1/uploads` (`MultipartUploadPort`, `limits.maxUploadBytes`). */
  Uploads: Symbol('virtual-anchor.service.Uploads'),
  /** Portrait uploads of `POST /v2/avatar` (`limits.maxPhotoBytes`). */
  PhotoUploads: Symbol('virtual-anchor.service.PhotoUploads'),
  /** `imageUrl` of `POST /v2/avatar` (`ResolverInputPort`, `limits.maxPhotoBytes`). */
  PhotoInputs: Symbol('virtual-anchor.service.PhotoInputs'),
  /** Files of `POST /v2/avatar`, a portrait or a clip (the larger of `limits.maxPhotoBytes` and `limits.maxAvatarVideoBytes`). */
  AvatarUploads: Symbol('virtual-anchor.service.AvatarUploads'),
  /** `videoUrl` of `POST /v2/avatar` (`ResolverInputPort`, `limits.maxAvatarVideoBytes`). */
  VideoInputs: Symbol('virtual-anchor.service.VideoInputs'),
  /** Job inputs by URL (`ResolverInputPort`, `limits.maxDownloadBytes`). */
  JobInputs: Symbol('virtual-anchor.service.JobInputs'),
} as const;
