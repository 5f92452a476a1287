/**
 * The parts of a bare {@link JobRunner} for tests that drive one directly (no HTTP, no queue): a runner over a memory
 * job store and a folder's blob store whose only engine is a separation engine, and a `pending` separation job of a
 * real 2 s speech file to run.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import type { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { OwnedDirs } from '../../src/storage/owned-dirs.js';
import { JobRunner, type JobRunnerSettings } from '../../src/core/jobs/job-runner.js';
import type { Logger } from '../../src/domain/logger.js';
import type { SeparationJob } from '../../src/core/kinds/separation/record.js';
import { KindRegistry } from '../../src/core/kinds/registry.js';
import { resolveOptions } from '../../src/core/resolve-options.js';
import type { KindServices } from '../../src/core/kinds/kind-spec.js';
import { TOKENS } from '../../src/core/tokens.js';
import { probeMedia, resolveMediaBinaries } from '../../src/inference/media/index.js';
import type { SeparationEngine } from '../../src/domain/engines.js';
import { BINARIES, fixtures } from './media.js';

/** What {@link runnerWith} builds on. */
export interface RunnerParts {
  store: MemoryJobStore;
  blobs: FsBlobStore;
  /** Work folders are made under `dir/work`. */
  dir: string;
  logger: Logger;
}

/** A runner whose only engine is `engine` (its kinds may use nothing else). */
export async function runnerWith(parts: RunnerParts, engine: SeparationEngine, settings: JobRunnerSettings): Promise<JobRunner> {
  const { store, blobs, dir, logger } = parts;
  const binaries = await resolveMediaBinaries(BINARIES);
  const services: KindServices = {
    options: resolveOptions({ apiKeys: ['k'] }).resolved,
    blobs,
    logger,
    avatars: { usable: async () => false, lipSyncSubject: async () => undefined, prepares: async () => false },
    engine: <T>(token: symbol) => (token === TOKENS.SeparationEngine ? (engine as T) : undefined),
  };
  return new JobRunner(store, blobs, new KindRegistry(), services, (path, signal) => probeMedia(path, binaries, { signal }), new OwnedDirs(join(dir, 'work')), settings, logger);
}

/** Stores a `pending` separation job (2 s of speech, owner `o`), with `patch` applied. */
export async function pendingSeparation(parts: Pick<RunnerParts, 'store' | 'blobs'>, patch: Partial<SeparationJob> = {}): Promise<SeparationJob> {
  const audio = await parts.blobs.put(createReadStream((await fixtures()).path('speech.wav')), { owner: 'o', contentType: 'audio/wav' });
  const now = new Date().toISOString();
  const job: SeparationJob = {
    kind: 'separation',
    uid: randomUUID(),
    taskId: randomUUID(),
    owner: 'o',
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    input: { audioUri: 'http://example.test/a.wav', audio, durationSec: 2 },
    ...patch,
  };
  await parts.store.create(job);
  return job;
}
