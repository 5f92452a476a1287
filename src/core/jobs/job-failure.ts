import type { JobFailure } from '../../domain/job.js';

/** An error that carries the {@link JobFailure} to record on the job. */
export class JobFailedError extends Error {
  constructor(readonly failure: JobFailure) {
    super(failure.message);
    this.name = 'JobFailedError';
  }
}

/** Turns anything thrown by a worker into the failure kept on the job. */
export function toFailure(error: unknown): JobFailure {
  if (error instanceof JobFailedError) return error.failure;
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'processing_failed', message: message.slice(0, 2000) || 'processing failed' };
}
