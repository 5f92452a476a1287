/**
 * The job record kept by a {@link JobStore}: everything the service knows about one
 * asynchronous job. Responses are projections of this record (each kind's views in `core/kinds/<kind>/`).
 */

/** The four states of the spec's state machine (SPEC §3). */
export const JOB_STATUSES = ['pending', 'ongoing', 'completed', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * What a job does: a key of the instance's job kind registry (`src/core/kinds/`). Built in: the two API resources
 * (`avatarVideo`, `separation`) and `avatarPrepare`, the background work that makes an avatar's assets (no route
 * lists those jobs; the avatar shows their state). A host adds its own with the `jobKinds` option.
 */
export type JobKind = string;

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

/** What every job's input holds, whatever its kind. */
export interface JobInput {
  /** Seconds of input media (0 when the job has none): its time budget and the real-time metric count them. */
  durationSec: number;
  /**
   * The spec's test aid (SPEC §3): the job starts and ends in `error` `dangerousFlagDelayMs` after its creation,
   * without reaching a queue or an engine.
   */
  dangerousFlag?: boolean;
}

/** The files a job made, by name (`video`, `speech`, ...): the result blobs it owns. */
export type JobResult = Readonly<Record<string, BlobRef>>;

/** Ids of the blobs a job result holds. */
export function resultBlobIds(result: JobResult | undefined): string[] {
  return result ? Object.values(result).map((blob) => blob.id) : [];
}

/** The fields every job record has, whatever its kind. */
export interface JobBase {
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
  /**
   * Kept until deleted: the record does not expire when the job ends, for a job whose record is the state of a
   * resource that lives until its owner deletes it (an avatar's preparation; `JobStore.delete` removes it). Its
   * final state queues no webhook: kinds with kept records send none.
   */
  kept?: boolean;
}

/** The webhook of a job: the store queues one delivery to `url` when the job first reaches a final state. */
export interface JobWebhook {
  /** The `webhookUrl` exactly as submitted. */
  url: string;
  /** Base URL of the links in the payload (`publicUrl`, or the creating request's). */
  baseUrl: string;
}

/**
 * One job record. `K`, `I` and `R` narrow it to one kind (its `kind`, `input` and `result`); each kind's folder
 * under `src/core/kinds/` names its own record type (e.g. `AvatarVideoJob`). Stores keep any kind's record.
 */
export interface Job<K extends JobKind = JobKind, I extends JobInput = JobInput, R extends JobResult = JobResult> extends JobBase {
  kind: K;
  input: I;
  /** The files the job made; set when it reaches `completed`. */
  result?: R;
}

/** Fields a state transition may change besides `status` and `updatedAt`. */
export type JobPatch = Partial<
  Pick<JobBase, 'completedAt' | 'heartbeatAt' | 'progress' | 'failure' | 'attempt'>
> & { result?: JobResult };

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
