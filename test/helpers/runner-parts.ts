/**
 * The parts of a bare {@link JobRunner} for tests that drive one directly (no HTTP, no queue): a memory job store and
 * a folder's blob store made for a suite ({@link useRunnerStores}), a runner over them whose only engine is a
 * separation engine, and a `pending` separation job of a real 2 s speech file to run.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { MemoryJobStore } from '../../src/storage/memory-job-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
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

/**
 * Registers `before`/`after` hooks on the enclosing suite: a folder named from `prefix` in the system's temporary
 * folder, a memory job store and a blob store in the folder, made before its tests and closed and removed after.
 * Read the returned object's fields inside tests.
 */
export function useRunnerStores(prefix: string): Omit<RunnerParts, 'logger'> {
  const parts = {} as Omit<RunnerParts, 'logger'>;
  before(async () => {
    parts.dir = await mkdtemp(join(tmpdir(), prefix));
    parts.store = new MemoryJobStore();
    parts.blobs = new FsBlobStore(join(parts.dir, 'blobs'));
  });
  after(async () => {
    await parts.store?.close();
    if (parts.dir) await rm(parts.dir, { recursive: true, force: true });
  });
  return parts;
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
