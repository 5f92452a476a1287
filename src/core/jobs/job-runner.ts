import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job, JobProgress, JobStatus } from '../job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { Logger } from '../logger.js';
import { sourcesOf } from '../state-machine.js';
import { toFailure } from './job-failure.js';
import { runWorker, type WorkerDeps } from './workers.js';

const HEARTBEAT_MS = 15_000;
const PROGRESS_WRITE_MS = 1_000;

/** Runs one job from `pending` to a final state, and ends jobs early (`dangerousFlag`, shutdown). */
export class JobRunner {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly store: JobStore,
    private readonly blobs: BlobStore,
    private readonly deps: WorkerDeps,
    private readonly resultsMs: number,
    private readonly logger: Logger,
  ) {}

  /** Takes the job (compare-and-set `pending → ongoing`) and runs it; returns at once if another worker has it. */
  async run(uid: string): Promise<void> {
    const job = await this.store.transition(uid, ['pending'], 'ongoing', { heartbeatAt: new Date().toISOString() });
    if (!job) return;
    const controller = new AbortController();
    this.running.set(uid, controller);
    const heartbeat = setInterval(() => {
      void this.store.patch(uid, ['ongoing'], { heartbeatAt: new Date().toISOString() }).catch(() => undefined);
    }, HEARTBEAT_MS);
    heartbeat.unref();
    const workDir = await mkdtemp(join(tmpdir(), 'virtual-anchor-job-'));
    let lastWrite = 0;
    const onProgress = (progress: JobProgress) => {
      const now = Date.now();
      if (now - lastWrite < PROGRESS_WRITE_MS && progress.done < progress.total) return;
      lastWrite = now;
      void this.store.patch(uid, ['ongoing'], { progress }).catch(() => undefined);
    };
    this.logger.info('job started', { uid, kind: job.kind });
    try {
      const result = await runWorker(job, this.deps, { signal: controller.signal, onProgress, workDir });
      controller.signal.throwIfAborted();
      await this.complete(job, result);
    } catch (error) {
      // When the job was ended from outside (fail() aborted it), this compare-and-set loses and changes nothing.
      const failure = toFailure(error);
      await this.fail(uid, failure.code, failure.message);
    } finally {
      clearInterval(heartbeat);
      this.running.delete(uid);
      await rm(workDir, { recursive: true, force: true });
    }
  }

  private async complete(job: Job, result: Job['result']): Promise<void> {
    const blobIds = resultBlobIds(result);
    const completedAt = new Date();
    const expiresAt = new Date(completedAt.getTime() + this.resultsMs).toISOString();
    await Promise.all(blobIds.map((id) => this.blobs.setExpiry(id, expiresAt)));
    const done = await this.store.transition(job.uid, ['ongoing'], 'completed', {
      result,
      completedAt: completedAt.toISOString(),
    });
    if (!done) {
      // The job was ended meanwhile (dangerousFlag, recovery): its result must not survive.
      await Promise.all(blobIds.map((id) => this.blobs.delete(id)));
      return;
    }
    this.logger.info('job completed', { uid: job.uid, kind: job.kind });
    await this.releaseScratch(done);
  }

  /**
   * Moves a job to `error` from any non-final state, aborting its engine if it runs here.
   * Returns false when the job was already final.
   */
  async fail(uid: string, code: string, message: string): Promise<boolean> {
    const from: JobStatus[] = sourcesOf('error');
    const failed = await this.store.transition(uid, from, 'error', { failure: { code, message } });
    this.running.get(uid)?.abort(new Error(message));
    if (!failed) return false;
    this.logger.warn('job failed', { uid, kind: failed.kind, code, reason: message });
    await this.releaseScratch(failed);
    return true;
  }

  /** Deletes the blobs a job created for its inputs. */
  private async releaseScratch(job: Job): Promise<void> {
    await Promise.all((job.scratchBlobs ?? []).map((id) => this.blobs.delete(id).catch(() => undefined)));
  }

  /** Aborts every running engine (service shutdown); the jobs end in `error`. */
  async abortAll(reason: string): Promise<void> {
    await Promise.all([...this.running.keys()].map((uid) => this.fail(uid, 'shutdown', reason)));
  }
}

/** Ids of the blobs a job result holds. */
export function resultBlobIds(result: Job['result'] | undefined): string[] {
  if (!result) return [];
  return 'video' in result ? [result.video.id] : [result.speech.id, result.ambience.id];
}
