import { createReadStream } from 'node:fs';
import type { AvatarVideoJob, Job, SeparationJob } from '../job.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { EngineContext, LipSyncEngine, SeparationEngine } from '../../inference/engines.js';
import type { AvatarDefinition } from '../../inference/avatar/definition.js';
import { JobFailedError } from './job-failure.js';
import { join } from 'node:path';

/** What the workers need; resolved from the container by the job runner. */
export interface WorkerDeps {
  blobs: BlobStore;
  lipSync?: LipSyncEngine;
  separation?: SeparationEngine;
  avatarDefinition(uid: string): AvatarDefinition | undefined;
}

async function pathOf(blobs: BlobStore, id: string, what: string): Promise<string> {
  const path = await blobs.localPath(id);
  if (!path) throw new JobFailedError({ code: 'input_missing', message: `the ${what} file is no longer available` });
  return path;
}

async function store(blobs: BlobStore, path: string, owner: string, contentType: string) {
  return blobs.put(createReadStream(path), { owner, contentType });
}

/** Renders an avatar video job into an mp4 blob. */
export async function runAvatarVideo(job: AvatarVideoJob, deps: WorkerDeps, context: EngineContext) {
  if (!deps.lipSync) throw new JobFailedError({ code: 'engine_missing', message: 'no lip-sync engine is configured' });
  const avatar = deps.avatarDefinition(job.input.avatarId);
  if (!avatar) throw new JobFailedError({ code: 'avatar_missing', message: `avatar ${job.input.avatarId} no longer exists` });
  const outputPath = join(context.workDir, 'video.mp4');
  await deps.lipSync.render(
    {
      audioPath: await pathOf(deps.blobs, job.input.audio.id, 'audio'),
      durationSec: job.input.durationSec,
      avatar,
      backgroundPath: job.input.background ? await pathOf(deps.blobs, job.input.background.id, 'background') : undefined,
      outputPath,
    },
    context,
  );
  return { video: await store(deps.blobs, outputPath, job.owner, 'video/mp4') };
}

/** Separates a job's input into two stem blobs. */
export async function runSeparation(job: SeparationJob, deps: WorkerDeps, context: EngineContext) {
  if (!deps.separation) throw new JobFailedError({ code: 'engine_missing', message: 'no separation engine is configured' });
  const speechPath = join(context.workDir, 'speech');
  const ambiencePath = join(context.workDir, 'ambience');
  const output = await deps.separation.separate(
    { audioPath: await pathOf(deps.blobs, job.input.audio.id, 'audio'), durationSec: job.input.durationSec, speechPath, ambiencePath },
    context,
  );
  const speech = await store(deps.blobs, speechPath, job.owner, output.contentType);
  const ambience = await store(deps.blobs, ambiencePath, job.owner, output.contentType).catch(async (error: unknown) => {
    await deps.blobs.delete(speech.id);
    throw error;
  });
  return { speech, ambience };
}

/** Runs the worker for the job's kind. */
export function runWorker(job: Job, deps: WorkerDeps, context: EngineContext): Promise<Job['result']> {
  return job.kind === 'avatarVideo' ? runAvatarVideo(job, deps, context) : runSeparation(job, deps, context);
}
