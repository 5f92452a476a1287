import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { AvatarVideoJob, Job, SeparationJob } from '../../domain/job.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { EngineContext, LipSyncEngine, SeparationEngine } from '../../domain/engines.js';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { Logger } from '../../domain/logger.js';
import { JobFailedError } from './job-failure.js';
import { verifyOutput, type ExpectedMedia, type ProbeFn } from './output-check.js';

/** What the workers need; resolved from the container by the job runner. */
export interface WorkerDeps {
  blobs: BlobStore;
  lipSync?: LipSyncEngine;
  separation?: SeparationEngine;
  avatarDefinition(uid: string): AvatarDefinition | undefined;
  /** Probes an engine's output before it is stored. */
  probe: ProbeFn;
  /**
   * Results are stored with an expiry this far ahead, so a result whose job never completes (aborted,
   * process killed) is deleted by retention; completion sets the real expiry.
   */
  provisionalExpiryMs: number;
  logger: Logger;
}

/**
 * A local file of an input blob for the engines: the store's own file when it has one (filesystem store), else a
 * copy streamed from the store into the job's work folder (S3), which the runner removes with the folder.
 */
async function pathOf(blobs: BlobStore, id: string, what: string, workDir: string): Promise<string> {
  const path = await blobToLocalFile(blobs, id, workDir, `input-${what}`);
  if (!path) throw new JobFailedError({ code: 'input_missing', message: `the ${what} file is no longer available` });
  return path;
}

/** What an engine wrote, to check and store. */
interface Output {
  path: string;
  what: string;
  expected: ExpectedMedia;
  contentType: string;
}

/**
 * Checks every output, then stores them as blobs with a provisional expiry. Nothing is stored once
 * the job was aborted (an engine that ignored the signal and finished late); on a failure, the blobs
 * stored so far are deleted.
 */
async function storeOutputs(job: Job, outputs: Output[], deps: WorkerDeps, context: EngineContext) {
  context.signal.throwIfAborted();
  for (const output of outputs) await verifyOutput(output.path, output.expected, output.what, deps.probe, context.signal);
  context.signal.throwIfAborted();
  const expiresAt = new Date(Date.now() + deps.provisionalExpiryMs).toISOString();
  const stored = [];
  try {
    for (const output of outputs) {
      stored.push(await deps.blobs.put(createReadStream(output.path), { owner: job.owner, contentType: output.contentType, expiresAt }));
    }
    context.signal.throwIfAborted();
    return stored;
  } catch (error) {
    // Left behind on failure, these still expire; deleting now frees the space at once.
    await Promise.all(
      stored.map((ref) =>
        deps.blobs.delete(ref.id).catch((cause: unknown) => {
          deps.logger.warn('could not delete the result of a failed job; retention will', { uid: job.uid, blob: ref.id, error: String(cause) });
        }),
      ),
    );
    throw error;
  }
}

/** Renders an avatar video job into an mp4 blob. */
export async function runAvatarVideo(job: AvatarVideoJob, deps: WorkerDeps, context: EngineContext) {
  if (!deps.lipSync) throw new JobFailedError({ code: 'engine_missing', message: 'no lip-sync engine is configured' });
  const avatar = deps.avatarDefinition(job.input.avatarId);
  if (!avatar) throw new JobFailedError({ code: 'avatar_missing', message: `avatar ${job.input.avatarId} no longer exists` });
  const outputPath = join(context.workDir, 'video.mp4');
  await deps.lipSync.render(
    {
      audioPath: await pathOf(deps.blobs, job.input.audio.id, 'audio', context.workDir),
      durationSec: job.input.durationSec,
      avatar,
      backgroundPath: job.input.background ? await pathOf(deps.blobs, job.input.background.id, 'background', context.workDir) : undefined,
      outputPath,
      ...(job.input.dimension ? { outputSize: job.input.dimension } : {}),
    },
    context,
  );
  const [video] = await storeOutputs(job, [{ path: outputPath, what: 'video', expected: 'mp4-video', contentType: 'video/mp4' }], deps, context);
  return { video: video! };
}

/** Separates a job's input into two stem blobs. */
export async function runSeparation(job: SeparationJob, deps: WorkerDeps, context: EngineContext) {
  if (!deps.separation) throw new JobFailedError({ code: 'engine_missing', message: 'no separation engine is configured' });
  const speechPath = join(context.workDir, 'speech');
  const ambiencePath = join(context.workDir, 'ambience');
  const output = await deps.separation.separate(
    { audioPath: await pathOf(deps.blobs, job.input.audio.id, 'audio', context.workDir), durationSec: job.input.durationSec, speechPath, ambiencePath },
    context,
  );
  const [speech, ambience] = await storeOutputs(
    job,
    [
      { path: speechPath, what: 'speech stem', expected: 'audio', contentType: output.contentType },
      { path: ambiencePath, what: 'ambience stem', expected: 'audio', contentType: output.contentType },
    ],
    deps,
    context,
  );
  return { speech: speech!, ambience: ambience! };
}

/** Runs the worker for the job's kind. */
export function runWorker(job: Job, deps: WorkerDeps, context: EngineContext): Promise<Job['result']> {
  return job.kind === 'avatarVideo' ? runAvatarVideo(job, deps, context) : runSeparation(job, deps, context);
}
