/**
 * Injection tokens of the per-instance tsyringe container. Register your own implementation under a
 * token (or pass it in `options.backends`) to replace a built-in backend.
 */
export const TOKENS = {
  /** The instance's `ResolvedOptions`, registered at creation; read them from your own backends, do not replace them. */
  Options: Symbol.for('virtual-anchor.Options'),
  /** The instance's `Logger` (from the `logger` option), registered at creation; log through it, do not replace it. */
  Logger: Symbol.for('virtual-anchor.Logger'),
  /** Job records (`JobStore`). */
  JobStore: Symbol.for('virtual-anchor.JobStore'),
  /** The webhook outbox (`WebhookOutbox`) the job store's final transitions write; register it with your own `JobStore`. */
  WebhookOutbox: Symbol.for('virtual-anchor.WebhookOutbox'),
  /** Idempotency keys (`IdempotencyStore`); register one with your own `JobStore`. */
  IdempotencyStore: Symbol.for('virtual-anchor.IdempotencyStore'),
  /** Announcements of jobs ended or taken over (`JobEvents`): Redis pub/sub with `redis`, else within the process. */
  JobEvents: Symbol.for('virtual-anchor.JobEvents'),
  BlobStore: Symbol.for('virtual-anchor.BlobStore'),
  /** The job queue (`JobQueue`): in-process p-queue or BullMQ. */
  JobQueue: Symbol.for('virtual-anchor.JobQueue'),
  UrlSigner: Symbol.for('virtual-anchor.UrlSigner'),
  MediaBinaries: Symbol.for('virtual-anchor.MediaBinaries'),
  LipSyncEngine: Symbol.for('virtual-anchor.LipSyncEngine'),
  SeparationEngine: Symbol.for('virtual-anchor.SeparationEngine'),
  AvatarRenderer: Symbol.for('virtual-anchor.AvatarRenderer'),
  AvatarDefinitions: Symbol.for('virtual-anchor.AvatarDefinitions'),
  /** Finds the faces in uploaded portraits (`FaceDetector`), for photo avatars; built in: MediaPipe BlazeFace + Face Mesh. */
  FaceDetector: Symbol.for('virtual-anchor.FaceDetector'),
  /** Renders photo avatars' assets (`PhotoAvatarAssetRenderer`). */
  PhotoAvatarRenderer: Symbol.for('virtual-anchor.PhotoAvatarRenderer'),
  /** `VideoAvatarPreparer`: prepares video avatars' clips (engine processes). */
  VideoAvatarPreparer: Symbol.for('virtual-anchor.VideoAvatarPreparer'),
  /** Where photo avatars are kept (`AvatarStore`). */
  AvatarStore: Symbol.for('virtual-anchor.AvatarStore'),
  /** The instance's `MetricsRecorder` (a no-op when `metrics` is off); report to it, do not replace it. */
  Metrics: Symbol.for('virtual-anchor.Metrics'),
} as const;
