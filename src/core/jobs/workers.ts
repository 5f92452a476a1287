import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { AvatarPrepareJob, AvatarVideoJob, Job, SeparationJob } from '../../domain/job.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { EngineContext, LipSyncEngine, PhotoAvatarAssetRenderer, SeparationEngine } from '../../domain/engines.js';
import { avatarDefinitionSchema, type AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { PhotoAvatar, PhotoAvatarAssets } from '../../domain/avatar/photo-avatar.js';
import type { Logger } from '../../domain/logger.js';
import { JobFailedError } from './job-failure.js';
import { verifyOutput, type ExpectedMedia, type ProbeFn } from './output-check.js';

/** What the workers need; resolved from the container by the job runner. */
export interface WorkerDeps {
  blobs: BlobStore;
  lipSync?: LipSyncEngine;
  separation?: SeparationEngine;
  avatarDefinition(uid: string): AvatarDefinition | undefined;
  /** Renders photo avatars' assets (`avatarPrepare` jobs); without it those jobs end in `error`. */
  photoRenderer?: PhotoAvatarAssetRenderer;
  /** The owner's photo avatar of this uid (from the avatar store), or `undefined`. */
  photoAvatar?(uid: string, owner: string): Promise<PhotoAvatar | undefined>;
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

/** The avatar of a video job: a catalogue definition, or a photo avatar of the job's owner with its portrait copied locally. */
async function avatarOf(job: AvatarVideoJob, deps: WorkerDeps, workDir: string): Promise<{ avatar: AvatarDefinition; photo?: PhotoFace }> {
  const avatar = deps.avatarDefinition(job.input.avatarId);
  if (avatar) return { avatar };
  const photoAvatar = await deps.photoAvatar?.(job.input.avatarId, job.owner);
  if (!photoAvatar) throw new JobFailedError({ code: 'avatar_missing', message: `avatar ${job.input.avatarId} no longer exists` });
  const imagePath = await pathOf(deps.blobs, photoAvatar.photo.id, 'photo', workDir);
  // The engine reads only the id, the name and the frame rate of a photo avatar's definition.
  const definition = avatarDefinitionSchema.parse({ id: `photo-${photoAvatar.uid}`, name: photoAvatar.name.slice(0, 100) || 'photo', fps: photoAvatar.fps });
  return { avatar: definition, photo: { imagePath, landmarks: photoAvatar.landmarks } };
}

/** Renders an avatar video job into an mp4 blob. */
export async function runAvatarVideo(job: AvatarVideoJob, deps: WorkerDeps, context: EngineContext) {
  if (!deps.lipSync) throw new JobFailedError({ code: 'engine_missing', message: 'no lip-sync engine is configured' });
  const { avatar, photo } = await avatarOf(job, deps, context.workDir);
  const outputPath = join(context.workDir, 'video.mp4');
  await deps.lipSync.render(
    {
      audioPath: await pathOf(deps.blobs, job.input.audio.id, 'audio', context.workDir),
      durationSec: job.input.durationSec,
      avatar,
      backgroundPath: job.input.background ? await pathOf(deps.blobs, job.input.background.id, 'background', context.workDir) : undefined,
      outputPath,
      ...(job.input.dimension ? { outputSize: job.input.dimension } : {}),
      ...(photo ? { photo } : {}),
    },
    context,
  );
  const [video] = await storeOutputs(job, [{ path: outputPath, what: 'video', expected: 'mp4-video', contentType: 'video/mp4' }], deps, context);
  return { video: video! };
}

/**
 * Makes a photo avatar's thumbnail, preview and idle clip. They are stored with the provisional expiry of every
 * result; the avatar keeps them (clears the expiry) when it takes them, see `PhotoAvatarSettler`.
 */
export async function runAvatarPrepare(job: AvatarPrepareJob, deps: WorkerDeps, context: EngineContext): Promise<PhotoAvatarAssets> {
  const renderer = deps.photoRenderer;
  if (!renderer) throw new JobFailedError({ code: 'engine_missing', message: 'no photo avatar renderer is configured' });
  const face: PhotoFace = { imagePath: await pathOf(deps.blobs, job.input.photo.id, 'photo', context.workDir), landmarks: job.input.landmarks };
  const file = (name: string) => join(context.workDir, name);
  const total = 3;
  context.onProgress({ done: 0, total, unit: 'assets' });
  await renderer.renderThumbnail(face, file('thumbnail.png'));
  context.onProgress({ done: 1, total, unit: 'assets' });
  context.signal.throwIfAborted();
  await renderer.renderPreview(face, file('preview.png'));
  context.onProgress({ done: 2, total, unit: 'assets' });
  await renderer.renderIdleVideo(face, job.input.fps, file('idle.mp4'), context.signal);
  context.onProgress({ done: 3, total, unit: 'assets' });
  const [thumbnail, preview, video] = await storeOutputs(
    job,
    [
      { path: file('thumbnail.png'), what: 'thumbnail', expected: 'png', contentType: 'image/png' },
      { path: file('preview.png'), what: 'preview', expected: 'png', contentType: 'image/png' },
      { path: file('idle.mp4'), what: 'idle clip', expected: 'mp4-picture', contentType: 'video/mp4' },
    ],
    deps,
    context,
  );
  return { video: video!, preview: preview!, thumbnail: thumbnail! };
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
  if (job.kind === 'avatarVideo') return runAvatarVideo(job, deps, context);
  if (job.kind === 'separation') return runSeparation(job, deps, context);
  return runAvatarPrepare(job, deps, context);
}
