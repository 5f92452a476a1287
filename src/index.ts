/**
 * virtual-anchor: Express and Koa middleware serving lip-synced avatar videos (/v2) and
 * speech/ambience source separation (/v1, beta).
 *
 * @packageDocumentation
 */
import 'reflect-metadata';

export { virtualAnchor, type VirtualAnchorExpressMiddleware } from './adapters/express.js';
export { virtualAnchorKoa, type VirtualAnchorKoaMiddleware } from './adapters/koa.js';
export { createVirtualAnchor, type VirtualAnchor } from './core/create-virtual-anchor.js';
export { OptionsError, type VirtualAnchorOptions, type ResolvedOptions } from './core/options.js';
export { TOKENS } from './core/tokens.js';
export type { AuthenticateFn } from './core/auth.js';
export { toLogger, type Logger } from './domain/logger.js';
export type { MetricsRecorder } from './core/metrics/metrics-recorder.js';
export type { ErrorBody, FieldIssue } from './core/errors.js';
/** Deepest nesting of arrays and objects in a JSON body; deeper is 400 `validation_failed`. */
export { MAX_JSON_DEPTH } from './core/http/read-json.js';
export type { CoreRequest, CoreResponse, HeaderMap } from './core/http/types.js';
/** For adapters to other frameworks: write the core's answer to Node's response, guarded (see `virtual-anchor/testing`). */
export { sendResponse, failResponse } from './core/http/send-response.js';
export { clientGoneSignal, ClientGoneError } from './core/http/client-gone.js';
export { loggerOf } from './adapters/instance.js';
export type {
  Job,
  JobStatus,
  JobKind,
  JobFailure,
  JobProgress,
  JobPatch,
  JobInput,
  JobResult,
  BlobRef,
  ListQuery,
  ListResult,
} from './domain/job.js';
export { JOB_STATUSES } from './domain/job.js';
export type { AvatarVideoJob, AvatarVideoInput, AvatarVideoResult } from './core/kinds/avatar-video/index.js';
export type { SeparationJob, SeparationJobInput, SeparationResult } from './core/kinds/separation/index.js';
export type { AvatarPrepareJob, AvatarPrepareInput } from './core/kinds/avatar-prepare/index.js';
export type { AvatarVideoView, AvatarVideoCreatedView } from './core/kinds/avatar-video/schemas.js';
export type { SeparationView, SeparationListItemView, SeparationCreatedView } from './core/kinds/separation/schemas.js';
export {
  defineKind,
  type KindSpec,
  type KindApi,
  type KindDoc,
  type KindWebhook,
  type KindLimits,
  type KindCreation,
  type KindFields,
  type KindServices,
  type KindRunContext,
  type KindOutputs,
  type OutputFile,
} from './core/kinds/kind-spec.js';
export type { BuiltInJobKind } from './core/kinds/registry.js';
export type { AvatarDirectory, LipSyncSubject, LocalFile } from './core/avatars/avatar-directory.js';
export { JobFailedError } from './core/jobs/job-failure.js';
export type { ExpectedMedia } from './core/jobs/output-check.js';
export type { InputRequest, ResolvedInput } from './core/jobs/input-port.js';
export type { JobTimeout } from './core/jobs/job-deadline.js';
export type { LinkBuilder } from './core/links.js';
export type { AvatarView, AvatarListItemView } from './core/schemas/avatar.js';
export type { UploadView } from './core/schemas/upload.js';

export type { JobStore } from './storage/job-store.js';
export { LocalJobEvents, type JobEvents } from './storage/job-events.js';
export { RedisJobEvents, type RedisJobEventsOptions } from './storage/redis-job-events.js';
/** The webhook outbox port: written by its job store's final transitions, read by the webhook sender (`store.outbox` of the built-in stores). */
export type { WebhookOutbox, ClaimedDelivery } from './storage/webhook-outbox.js';
export { MemoryWebhookOutbox } from './storage/memory-webhook-outbox.js';
export { RedisWebhookOutbox } from './storage/redis-webhook-outbox.js';
/** The idempotency-key port (`Idempotency-Key` on creations and uploads). */
export type { IdempotencyStore, IdempotencyReservation, StoredAnswer } from './storage/idempotency-store.js';
export { MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions } from './storage/memory-idempotency-store.js';
export { RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from './storage/redis-idempotency-store.js';
export {
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  WEBHOOK_TOLERANCE_S,
  type WebhookHeaders,
  type WebhookVerificationReason,
  type IncomingHeaders,
} from './core/webhooks/signature.js';
export type { WebhookEvent } from './core/webhooks/event.js';
export type { BlobStore, BlobMeta, BlobInfo, BlobCapability, PresignOptions } from './storage/blob-store.js';
export { BlobExistsError, BlobTooLargeError, type LeftoverReport } from './storage/blob-store.js';
export { MemoryJobStore, type MemoryJobStoreOptions } from './storage/memory-job-store.js';
export { RedisJobStore, type RedisJobStoreOptions } from './storage/redis-job-store.js';
export type { RedisTimeouts } from './storage/redis-connection.js';
export { StoreUnavailableError, isStoreUnavailable } from './storage/store-unavailable-error.js';
export { FsBlobStore } from './storage/fs-blob-store.js';
export { S3BlobStore, type S3BlobStoreOptions, type S3Location } from './storage/s3-blob-store.js';

export type {
  LipSyncEngine,
  LipSyncInput,
  SeparationEngine,
  SeparationInput,
  SeparationOutput,
  EngineContext,
  AvatarAssetRenderer,
  FaceDetector,
  PhotoAvatarAssetRenderer,
  VideoAvatarPreparer,
  PreparedVideoAvatar,
} from './domain/engines.js';
export {
  VIDEO_AVATAR_ERROR_CODES,
  VIDEO_FACE_FORMAT,
  videoFaceSchema,
  type VideoAvatarErrorCode,
  type VideoFace,
  type VideoFaceData,
  type AtlasEntry,
} from './domain/avatar/video-face.js';
export type { VideoAvatar, VideoSource } from './domain/avatar/video-avatar.js';
export { NotAnImageError, MIN_FACE_HEIGHT_PX, PHOTO_FRAME_SIZE, photoDefinition, type PhotoFace, type FaceDetection } from './domain/avatar/photo.js';
export { FACE_LANDMARK_COUNT, FACE_PARTS, faceLandmarksSchema, type FaceLandmarks, type FacePoint } from './domain/avatar/face-landmarks.js';
export {
  PHOTO_AVATAR_STATUSES,
  PHOTO_AVATAR_FPS,
  type PhotoAvatar,
  type PhotoAvatarAssets,
  type PhotoAvatarStatus,
  type PhotoSource,
} from './domain/avatar/photo-avatar.js';
export type { OwnedAvatar, OwnedAvatarFields } from './domain/avatar/owned-avatar.js';
export type { AvatarAssetKind, AvatarSourceFields, AssetOutputs, AssetDrawers } from './core/avatars/asset-kinds/asset-kind.js';
export type { AvatarSource } from './core/avatars/asset-kinds/registry.js';
export type { CatalogueSource } from './core/avatars/asset-kinds/catalogue.js';
export type { AvatarStore } from './storage/avatar-store.js';
export { MemoryAvatarStore } from './storage/memory-avatar-store.js';
export { RedisAvatarStore, type RedisAvatarStoreOptions } from './storage/redis-avatar-store.js';
export type { AvatarDefinition, AvatarDefinitionInput } from './domain/avatar/definition.js';
export type { MouthShape, MouthTrackAnalyzer } from './inference/lipsync/mouth.js';
/*
 * The built-in engines' classes are exported by `virtual-anchor/engines` (src/engines.ts): importing them loads
 * onnxruntime-node and @napi-rs/canvas, which this entry never does, so an `api` process does not load them.
 */
export type { CanvasLipSyncEngine, CanvasLipSyncEngineOptions } from './inference/lipsync/engine.js';
export type { OnnxMouthAnalyzer, OnnxMouthAnalyzerOptions, MouthAnalysis } from './inference/lipsync/onnx-mouth-analyzer.js';
export type { JobQueue, QueuedJob, QueueHandlers, QueueCapabilities, QueueDepth, Delivery } from './queue/job-queue.js';
export { MemoryJobQueue, type MemoryJobQueueLimits } from './queue/memory-job-queue.js';
export { BullMqJobQueue, type BullMqJobQueueOptions } from './queue/bullmq-job-queue.js';
export type { MouthTrackOptions } from './inference/lipsync/mouth-track.js';
export type { VoiceActivityOptions } from './inference/lipsync/voice-activity.js';
export type { ChunkOptions } from './inference/lipsync/viseme-model.js';
export type { VideoEncoderSettings, X264Preset } from './inference/media/encode-video.js';
export type { RenderThread } from './inference/render/frame-source.js';
export type { MediaBinaries, MediaBinarySource, ResolveMediaBinariesOptions } from './inference/media/binaries.js';
