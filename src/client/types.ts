/**
 * The shapes the API answers and accepts, for the typed client. They mirror the zod schemas the service
 * validates with (src/core/schemas; a type test keeps them equal) without importing zod, so the client
 * stays small and runs in browsers.
 */

/** The four states of a job; `completed` and `error` are final. */
export type JobStatus = 'pending' | 'ongoing' | 'completed' | 'error';

/** Why a job ended in `error` (extension field, present only then). */
export interface ErrorReason {
  code: string;
  message: string;
}

/** The paginated envelope of every list. */
export interface Page<T> {
  page: number;
  perPage: number;
  total: number;
  nextPage: number | null;
  data: T[];
}

/** Whether an avatar's idle clip, preview and thumbnail exist: `pending`, then `completed` or `error`. */
export type ThumbnailGenerationStatus = 'pending' | 'completed' | 'error';

interface AvatarFields {
  uid: string;
  name: string;
  /** Signed link to the idle-loop mp4; empty string until generated. */
  path: string;
  previewImagePath: string;
  thumbnailPath: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * One avatar (GET /v2/avatar/{uid}); links are signed and expire. A photo avatar also carries
 * `thumbnailGenerationStatus` (and `errorReason` once it is `error`).
 */
export interface Avatar extends AvatarFields {
  thumbnailGenerationStatus?: ThumbnailGenerationStatus;
  errorReason?: ErrorReason;
}

/** An avatar as listed (GET /v2/avatar) and as created (POST /v2/avatar). */
export interface AvatarListItem extends AvatarFields {
  thumbnailGenerationStatus: ThumbnailGenerationStatus;
  /** Why a photo avatar could not be prepared (only when `error`). */
  errorReason?: ErrorReason;
}

/** Body of POST /v2/avatar as JSON: a JPEG, PNG or WebP portrait at a URL (an upload URL of the same key works). */
export interface CreateAvatar {
  imageUrl: string;
  /** 1 to 100 characters. */
  name?: string;
}

/** Body of POST /v2/2davatar. */
export interface CreateAvatarVideo {
  audioUrl: string;
  avatarId: string;
  backgroundUrl?: string;
  /** Extension: the video frame size in pixels (each side even, 256 to 1920; default 512×512). */
  dimension?: Dimension;
  dangerousFlag?: boolean;
  /** Where to POST a signed event (Standard Webhooks) when the job reaches `completed` or `error`. */
  webhookUrl?: string;
}

/** A video frame size in pixels (`dimension` of POST /v2/2davatar). */
export interface Dimension {
  width: number;
  height: number;
}

/** What POST /v2/2davatar answers for the created job. */
export interface AvatarVideoCreated {
  uid: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
}

/** An avatar video job (GET /v2/2davatar/{id} and list items). */
export interface AvatarVideo extends AvatarVideoCreated {
  /** Signed link to the mp4; empty string until completed. */
  path: string;
  /** From 0 to 1, only while `ongoing`. */
  progress?: number;
  errorReason?: ErrorReason;
}

/** Body of POST /v1/sourceSeparations. */
export interface CreateSourceSeparation {
  audioUri: string;
  /** Where to POST a signed event (Standard Webhooks) when the job reaches `completed` or `error`. */
  webhookUrl?: string;
}

/** Signed links to the two stems; empty strings until completed. */
export interface SeparationPaths {
  speech: string;
  ambience: string;
}

/** What POST /v1/sourceSeparations answers for the created job. */
export interface SourceSeparationCreated {
  uid: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  audioUri: string;
}

/** A source separation as listed (no `audioUri`, no `taskId`). */
export interface SourceSeparationListItem {
  uid: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  path: SeparationPaths;
  progress?: number;
  errorReason?: ErrorReason;
}

/** A source separation job (GET /v1/sourceSeparations/{id}). */
export interface SourceSeparation extends SourceSeparationListItem {
  audioUri: string;
  taskId: string;
}

/** An upload (POST /v1/uploads, GET /v1/uploads/{id}). */
export interface Upload {
  url: string;
  uid: string;
  fileName: string;
  contentType: string;
  size: number;
  createdAt: string;
  expiresAt: string;
}

/** The body of every error answer. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    details?: { field: string; message: string }[];
  };
}

/** The event POSTed to the `webhookUrl` of an avatar video job when it ends (verify it with `verifyWebhook`). */
export interface AvatarVideoWebhookEvent {
  type: 'avatarVideo.completed' | 'avatarVideo.error';
  /** The job as GET /v2/2davatar/{id} answers it. */
  data: AvatarVideo;
}

/** The event POSTed to the `webhookUrl` of a source separation when it ends. */
export interface SourceSeparationWebhookEvent {
  type: 'sourceSeparation.completed' | 'sourceSeparation.error';
  /** The job as GET /v1/sourceSeparations/{id} answers it. */
  data: SourceSeparation;
}
