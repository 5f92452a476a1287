/**
 * The job record kept by a {@link JobStore}: everything the service knows about one
 * asynchronous job. Responses are projections of this record (see `core/views.ts`).
 */

import type { FrameSize } from './frame-size.js';
import type { FaceLandmarks } from './avatar/face-landmarks.js';
import type { PhotoAvatarAssets } from './avatar/photo-avatar.js';

/** The four states of the spec's state machine (SPEC §3). */
export const JOB_STATUSES = ['pending', 'ongoing', 'completed', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * What a job does: the two API resources (`avatarVideo`, `separation`), and `avatarPrepare`, the background work
 * that makes a photo avatar's assets (no route lists these jobs; the avatar shows their state).
 */
export type JobKind = 'avatarVideo' | 'separation' | 'avatarPrepare';

/**
 * Whether a job of this kind resumes when the process running it stops (shutdown, crash) instead of ending in
 * `error`: true for `avatarPrepare`, whose client sees a `pending` avatar rather than a job, and which is safe to
 * run again. A shutdown leaves such a job `ongoing` and marks it stopped; recovery (in any process) hands it to a
 * queue again, which takes it over with its next attempt, up to `maxAttempts`. The API's own jobs end in `error`
 * (`shutdown`, `interrupted`) as the spec's state machine shows, unless a queue with retries hands them on.
 */
export function resumesAfterStop(kind: JobKind): boolean {
  return kind === 'avatarPrepare';
}

/** A file held by a {@link BlobStore}. */
export interface BlobRef {
  /** Opaque blob id (URL-safe). */
  id: string;
  /** MIME type served with the file. */
  contentType: string;
  /** Size in bytes. */
  size: number;
}

/** Why a job ended in `error`. Kept on the record and exposed as `errorReason`. */
export interface JobFailure {
  /** Stable machine-readable code, e.g. `engine_missing`, `dangerous_flag`, `processing_failed`. */
  code: string;
  /** Human-readable explanation. */
  message: string;
}

/** Progress reported by an engine while a job is `ongoing`. */
export interface JobProgress {
  done: number;
  total: number;
  unit: string;
}

/** Input of an avatar video job after validation and resolution. */
export interface AvatarVideoInput {
  /** The `audioUrl` exactly as submitted. */
  audioUrl: string;
  avatarId: string;
  backgroundUrl?: string;
  dangerousFlag: boolean;
  /** Local copy of the audio (a blob owned by the job). */
  audio: BlobRef;
  /** Local copy of the background image, when given. */
  background?: BlobRef;
  /** Probed audio duration in seconds. */
  durationSec: number;
  /** The requested frame size (`dimension`); absent: the default 512×512. */
  dimension?: FrameSize;
}

/** Input of a source separation job after validation and resolution. */
export interface SeparationInput {
  /** The `audioUri` exactly as submitted. */
  audioUri: string;
  /** Local copy of the input (a blob owned by the job). */
  audio: BlobRef;
  durationSec: number;
}

/** Input of an `avatarPrepare` job: what the asset renderer needs, copied from the photo avatar. */
export interface AvatarPrepareInput {
  /** The portrait (owned by the avatar, not by the job). */
  photo: BlobRef;
  landmarks: FaceLandmarks;
  fps: number;
  /** Always 0: the job has no media input to count its time budget from. */
  durationSec: number;
}

interface JobBase {
  uid: string;
  /** Owner: a hash of the API key that created the job. */
  owner: string;
  status: JobStatus;
  createdAt: string;
  updatedAt: string;
  /** Set when the job reaches `completed`; retention counts from here. */
  completedAt?: string;
  /** Set when a worker takes the job (`ongoing`) and refreshed while it runs. */
  heartbeatAt?: string;
  /** When the job last moved into `ongoing` (its current run began); stamped by the store with `updatedAt`. */
  startedAt?: string;
  /**
   * Which run of the job holds it: 1 for the first worker that took it, one more each time another worker
   * took over a run whose worker died (queues with retries). Absent while `pending`. Writes of a run guard
   * on it, so a late earlier run can never overwrite the record.
   */
  attempt?: number;
  progress?: JobProgress;
  failure?: JobFailure;
  /** Blobs the job created for its inputs (downloads, not the caller's uploads); deleted when the job ends. */
  scratchBlobs?: string[];
  /** Where the final state is announced (the creation's `webhookUrl`), with the base URL of links in the payload. */
  webhook?: JobWebhook;
}

/** The webhook of a job: the store queues one delivery to `url` when the job first reaches a final state. */
export interface JobWebhook {
  /** The `webhookUrl` exactly as submitted. */
  url: string;
  /** Base URL of the links in the payload (`publicUrl`, or the creating request's). */
  baseUrl: string;
}

export interface AvatarVideoJob extends JobBase {
  kind: 'avatarVideo';
  input: AvatarVideoInput;
  result?: { video: BlobRef };
}

export interface SeparationJob extends JobBase {
  kind: 'separation';
  /** The spec's `taskId`: a UUID naming the processing task. */
  taskId: string;
  input: SeparationInput;
  result?: { speech: BlobRef; ambience: BlobRef };
}

/** Makes a photo avatar's idle clip, preview and thumbnail; its uid is the avatar's. */
export interface AvatarPrepareJob extends JobBase {
  kind: 'avatarPrepare';
  input: AvatarPrepareInput;
  result?: PhotoAvatarAssets;
}

export type Job = AvatarVideoJob | SeparationJob | AvatarPrepareJob;

/** Fields a state transition may change besides `status` and `updatedAt`. */
export type JobPatch = Partial<
  Pick<JobBase, 'completedAt' | 'heartbeatAt' | 'progress' | 'failure' | 'attempt'>
> & { result?: Job['result'] };

/** An extra condition of a compare-and-set: the record's `attempt` (absent counts as 0) must be this. */
export interface JobExpectation {
  attempt?: number;
}

/** Listing query for {@link JobStore.list}. */
export interface ListQuery {
  owner: string;
  kind: JobKind;
  page: number;
  perPage: number;
  status?: JobStatus;
}

export interface ListResult<T> {
  total: number;
  items: T[];
}
