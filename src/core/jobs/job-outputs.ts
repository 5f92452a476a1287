import type { BlobRef, Job, JobResult } from '../../domain/job.js';
import type { Logger } from '../../domain/logger.js';
import { BlobExistsError, type BlobMeta, type BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile, putLocalFile } from '../../storage/blob-files.js';
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
 * Nothing is stored once the job was aborted (an engine that ignored the signal and finished late). With `ids`
 * (the kind's fixed result ids), each is stored under its id, or the blob an earlier run stored there is kept, and a
 * failure leaves them (another run of the job may hold them; unused, they expire); otherwise a failure deletes the
 * blobs stored so far.
 */
export async function storeOutputs(
  job: Job,
  outputs: Readonly<Record<string, OutputFile>>,
  deps: OutputDeps,
  signal: AbortSignal,
  ids?: Readonly<Record<string, string>>,
): Promise<JobResult> {
  signal.throwIfAborted();
  const named = Object.entries(outputs);
  for (const [, output] of named) await verifyOutput(output.path, output.expected, output.what, deps.probe, signal);
  signal.throwIfAborted();
  const expiresAt = new Date(Date.now() + deps.provisionalExpiryMs).toISOString();
  const stored: Record<string, BlobRef> = {};
  try {
    for (const [name, output] of named) {
      const meta = { owner: job.owner, contentType: output.contentType, expiresAt };
      const id = ids?.[name];
      stored[name] = id ? await putOrKeep(deps.blobs, output.path, meta, id) : await putLocalFile(deps.blobs, output.path, meta);
    }
    signal.throwIfAborted();
    return stored;
  } catch (error) {
    if (ids) throw error;
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

/** Stores the file under `id`, or when a blob is there already (an earlier run of the job stored it), keeps that one. */
async function putOrKeep(blobs: BlobStore, path: string, meta: BlobMeta, id: string): Promise<BlobRef> {
  try {
    return await putLocalFile(blobs, path, meta, { id });
  } catch (error) {
    if (!(error instanceof BlobExistsError)) throw error;
    const existing = await blobs.stat(id);
    if (!existing) throw error;
    // Its expiry stays as it is: this run's completion sets it, and a run that completed the job already cleared it.
    return { id: existing.id, contentType: existing.contentType, size: existing.size };
  }
}
