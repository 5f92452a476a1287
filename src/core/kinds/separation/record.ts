import type { BlobRef, Job, JobInput } from '../../../domain/job.js';

/** Input of a source separation job after validation and resolution. */
export interface SeparationJobInput extends JobInput {
  /** The `audioUri` exactly as submitted. */
  audioUri: string;
  /** Local copy of the input (a blob owned by the job). */
  audio: BlobRef;
  durationSec: number;
}

/** The stems of a completed separation. */
export type SeparationResult = { speech: BlobRef; ambience: BlobRef };

/** A speech/ambience source separation (POST /v1/sourceSeparations). */
export interface SeparationJob extends Job<'separation', SeparationJobInput, SeparationResult> {
  /** The spec's `taskId`: a UUID naming the processing task. */
  taskId: string;
}
