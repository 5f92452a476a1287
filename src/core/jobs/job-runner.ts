import { rm } from 'node:fs/promises';
import type { Job, JobFailure, JobProgress } from '../job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { Logger } from '../logger.js';
import { RUNNING_STATUSES, sourcesOf } from '../state-machine.js';
import { JobFailedError, toFailure } from './job-failure.js';
import { jobBudgetMs, timeoutError, type JobTimeout } from './job-deadline.js';
import { runWorker, type WorkerDeps } from './workers.js';

const PROGRESS_WRITE_MS = 1_000;
/** How often a running job's status is read back, so a cancel (or any end) made by another process stops the engine soon. */
const STATUS_WATCH_MS = 1_000;

/** Settings of a {@link JobRunner}. */
export interface JobRunnerSettings {
  /** Results are deleted this long after completion. */
  resultsMs: number;
  /** How often a running job's heartbeat is written (which also checks that the job is still `ongoing`). */
  heartbeatMs: number;
  /** Per-job deadline. */
  timeout: JobTimeout;
}

/**
 * Runs one job from `pending` to a final state, and ends jobs early (`dangerousFlag`, shutdown).
 *
 * Everything after the claim (`pending → ongoing`) is one guarded path: whatever throws, the job ends
 * in `error` with a kept reason, its heartbeat and deadline timers stop and its work folder goes. The
 * engine's signal aborts when the deadline passes, when the job is ended from outside (here or, seen
 * by the heartbeat, by another process), or at shutdown; `run` then returns at once even if the engine
 * ignores the signal, so its queue slot is free again and nothing it produces later is stored.
 */
export class JobRunner {
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly store: JobStore,
    private readonly blobs: BlobStore,
    private readonly deps: WorkerDeps,
    private readonly workDirs: OwnedDirs,
    private readonly settings: JobRunnerSettings,
    private readonly logger: Logger,
  ) {}

  /** Takes the job (compare-and-set `pending → ongoing`) and runs it; returns at once if another worker has it. */
  async run(uid: string): Promise<void> {
    const job = await this.store.transition(uid, sourcesOf('ongoing'), 'ongoing', { heartbeatAt: new Date().toISOString() });
    if (!job) return;
    const controller = new AbortController();
    this.running.set(uid, controller);
    const budgetMs = jobBudgetMs(job, this.settings.timeout);
    const deadline = setTimeout(() => controller.abort(timeoutError(budgetMs)), budgetMs);
    const heartbeat = setInterval(() => void this.beat(job, controller), this.settings.heartbeatMs);
    const watch = setInterval(() => void this.watch(job, controller), STATUS_WATCH_MS);
    deadline.unref();
    heartbeat.unref();
    watch.unref();
    let workDir: string | undefined;
    try {
      workDir = await this.workDirs.create('job').catch((error: unknown) => {
        this.logger.error('could not make a job work folder', { uid, root: this.workDirs.root, error: String(error) });
        throw new JobFailedError({ code: 'processing_failed', message: 'the service could not make a work folder for the job' });
      });
      this.logger.info('job started', { uid, kind: job.kind, budgetMs });
      const work = runWorker(job, this.deps, { signal: controller.signal, onProgress: this.progressWriter(job), workDir });
      const result = await untilAborted(work, controller.signal, (error) => {
        if (error === undefined) this.logger.warn('an engine finished after its job had ended; its output was discarded', { uid, kind: job.kind });
        else this.logger.debug('an engine stopped after its job had ended', { uid, kind: job.kind, error: String(error) });
      });
      // From here on the job is the store's to finish: a heartbeat or progress write that finds it completed
      // must not abort it, nor may shutdown (the compare-and-set to `completed` decides).
      clearInterval(heartbeat);
      clearInterval(watch);
      this.running.delete(uid);
      await this.complete(job, result);
    } catch (error) {
      // Once aborted, the abort's reason is why the job ends (a timeout, say), not what the engine threw.
      const failure = toFailure(controller.signal.aborted ? controller.signal.reason : error);
      // When the job was ended from outside, this compare-and-set loses and changes nothing.
      await this.fail(uid, failure.code, failure.message);
    } finally {
      clearTimeout(deadline);
      clearInterval(heartbeat);
      clearInterval(watch);
      this.running.delete(uid);
      if (!controller.signal.aborted) controller.abort(new Error('the job has ended'));
      if (workDir) {
        await rm(workDir, { recursive: true, force: true }).catch((error: unknown) => {
          this.logger.warn('could not remove a job work folder; the next start will', { uid, workDir, error: String(error) });
        });
      }
    }
  }

  /** Refreshes the heartbeat; when the job is no longer `ongoing` in the store (ended elsewhere), aborts the engine. */
  private async beat(job: Job, controller: AbortController): Promise<void> {
    try {
      const alive = await this.store.patch(job.uid, RUNNING_STATUSES, { heartbeatAt: new Date().toISOString() });
      if (!alive) this.endedElsewhere(job, controller);
    } catch (error) {
      this.logger.warn('could not write a job heartbeat', { uid: job.uid, error: String(error) });
    }
  }

  /** Reads the job's status back; when it is no longer `ongoing` (canceled, ended elsewhere), aborts the engine. */
  private async watch(job: Job, controller: AbortController): Promise<void> {
    try {
      const current = await this.store.get(job.uid);
      if (current?.status !== 'ongoing') this.endedElsewhere(job, controller, current?.failure);
    } catch (error) {
      // The heartbeat reports store trouble at warn; one read a second need not repeat it.
      this.logger.debug('could not read the status of a running job', { uid: job.uid, error: String(error) });
    }
  }

  /** Writes progress at most once a second (and always the last step); never throws. */
  private progressWriter(job: Job): (progress: JobProgress) => void {
    let lastWrite = 0;
    return (progress) => {
      const now = Date.now();
      if (now - lastWrite < PROGRESS_WRITE_MS && progress.done < progress.total) return;
      lastWrite = now;
      this.store.patch(job.uid, RUNNING_STATUSES, { progress }).catch((error: unknown) => {
        this.logger.warn('could not write job progress', { uid: job.uid, error: String(error) });
      });
    };
  }

  /** The store says the job is no longer `ongoing` (another process or recovery ended it): stop its engine. */
  private endedElsewhere(job: Job, controller: AbortController, failure?: JobFailure): void {
    if (controller.signal.aborted || this.running.get(job.uid) !== controller) return;
    this.logger.warn('job was ended by another writer; stopping its engine', { uid: job.uid, kind: job.kind, code: failure?.code });
    controller.abort(new JobFailedError(failure ?? { code: 'interrupted', message: 'the job was ended elsewhere while it ran' }));
  }

  private async complete(job: Job, result: Job['result']): Promise<void> {
    const blobIds = resultBlobIds(result);
    const completedAt = new Date();
    const expiresAt = new Date(completedAt.getTime() + this.settings.resultsMs).toISOString();
    await Promise.all(blobIds.map((id) => this.blobs.setExpiry(id, expiresAt)));
    const done = await this.store.transition(job.uid, sourcesOf('completed'), 'completed', {
      result,
      completedAt: completedAt.toISOString(),
    });
    if (!done) {
      // The job was ended meanwhile (dangerousFlag, recovery): its result must not survive.
      await this.deleteBlobs(job, blobIds, 'result of a job ended meanwhile');
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
    const failed = await this.store.transition(uid, sourcesOf('error'), 'error', { failure: { code, message } });
    this.running.get(uid)?.abort(new JobFailedError({ code, message }));
    if (!failed) return false;
    this.logger.warn('job failed', { uid, kind: failed.kind, code, reason: message });
    await this.releaseScratch(failed);
    return true;
  }

  /** Deletes the blobs a job created for its inputs. */
  private async releaseScratch(job: Job): Promise<void> {
    await this.deleteBlobs(job, job.scratchBlobs ?? [], 'input copy');
  }

  /** Deletes blobs of a job; a failure is logged (retention or a later sweep may still remove them). */
  private async deleteBlobs(job: Job, ids: readonly string[], what: string): Promise<void> {
    await Promise.all(
      ids.map((id) =>
        this.blobs.delete(id).catch((error: unknown) => {
          this.logger.warn(`could not delete the ${what}`, { uid: job.uid, blob: id, error: String(error) });
        }),
      ),
    );
  }

  /** Aborts every running engine (service shutdown); the jobs end in `error`. */
  async abortAll(reason: string): Promise<void> {
    await Promise.all([...this.running.keys()].map((uid) => this.fail(uid, 'shutdown', reason)));
  }
}

/**
 * Settles like `work`, or rejects with the signal's reason as soon as it aborts, whatever `work` does
 * then; `onLate` hears how a `work` that outlived the abort settled (`undefined`: it resolved).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onLate: (error: unknown) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const settle = (error: unknown) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) onLate(error);
    };
    work.then(
      (value) => {
        settle(undefined);
        resolve(value);
      },
      (error: unknown) => {
        settle(error ?? new Error('rejected without a reason'));
        reject(error);
      },
    );
  });
}

/** Ids of the blobs a job result holds. */
export function resultBlobIds(result: Job['result'] | undefined): string[] {
  if (!result) return [];
  return 'video' in result ? [result.video.id] : [result.speech.id, result.ambience.id];
}
