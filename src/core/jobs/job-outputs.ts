import { createReadStream } from 'node:fs';
import type { BlobRef, Job, JobResult } from '../../domain/job.js';
import type { Logger } from '../../domain/logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { OutputFile } from '../kinds/kind-spec.js';
import { JobFailedError } from './job-failure.js';
import { verifyOutput, type ProbeFn } from './output-check.js';

/** What storing a run's outputs needs. */
export interface OutputDeps {
  blobs: BlobStore;
  /** Probes an engine's output before it is stored. */
  probe: ProbeFn;
  /**
   * Results are stored with an expiry this far ahead, so a result whose job never completes (aborted, process
   * killed) is deleted by retention; completion sets the real one.
   */
  provisionalExpiryMs: number;
  logger: Logger;
}

/**
 * A local file of an input blob for an engine: the store's own file when it has one (filesystem store), else a copy
 * streamed from the store into the job's work folder (S3), which the runner removes with the folder.
 * @throws JobFailedError `input_missing` when the blob is gone.
 */
export async function localInputFile(blobs: BlobStore, blob: BlobRef, what: string, workDir: string): Promise<string> {
  const path = await blobToLocalFile(blobs, blob.id, workDir, `input-${what.replace(/[^A-Za-z0-9-]+/g, '-')}`);
  if (!path) throw new JobFailedError({ code: 'input_missing', message: `the ${what} file is no longer available` });
  return path;
}

/**
 * Checks every output of a run, then stores them as blobs with a provisional expiry: the job's result, by name.
 * Nothing is stored once the job was aborted (an engine that ignored the signal and finished late); on a failure,
 * the blobs stored so far are deleted.
 */
export async function storeOutputs(job: Job, outputs: Readonly<Record<string, OutputFile>>, deps: OutputDeps, signal: AbortSignal): Promise<JobResult> {
  signal.throwIfAborted();
  const named = Object.entries(outputs);
  for (const [, output] of named) await verifyOutput(output.path, output.expected, output.what, deps.probe, signal);
  signal.throwIfAborted();
  const expiresAt = new Date(Date.now() + deps.provisionalExpiryMs).toISOString();
  const stored: Record<string, BlobRef> = {};
  try {
    for (const [name, output] of named) {
      stored[name] = await deps.blobs.put(createReadStream(output.path), { owner: job.owner, contentType: output.contentType, expiresAt });
    }
    signal.throwIfAborted();
    return stored;
  } catch (error) {
    // Left behind on failure, these still expire; deleting now frees the space at once.
    await Promise.all(
      Object.values(stored).map((ref) =>
        deps.blobs.delete(ref.id).catch((cause: unknown) => {
          deps.logger.warn('could not delete the result of a failed job; retention will', { uid: job.uid, blob: ref.id, error: String(cause) });
        }),
      ),
    );
    throw error;
  }
}
