import { rm } from 'node:fs/promises';
import { resultBlobIds, type Job, type JobExpectation, type JobFailure, type JobProgress, type JobResult } from '../../domain/job.js';
import type { Delivery } from '../../queue/job-queue.js';
import type { JobStore } from '../../storage/job-store.js';
import type { JobEvents } from '../../storage/job-events.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { Logger } from '../../domain/logger.js';
import { RUNNING_STATUSES, sourcesOf } from '../../domain/state-machine.js';
import { JobFailedError, toFailure } from './job-failure.js';
import { jobBudgetMs, timeoutError, type JobTimeout } from './job-deadline.js';
import { isDangerous } from './dangerous-flag.js';
import { localInputFile, storeOutputs, type OutputDeps } from './job-outputs.js';
import type { ProbeFn } from './output-check.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { KindRunContext, KindServices, KindSpec } from '../kinds/kind-spec.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import { isEngineCrash } from '../../domain/engine-crash.js';

/**
 * Progress is written at most this often (and always its last step). Each write is a compare-and-set of the record
 * (a read and a script: two Redis round trips) and also refreshes the heartbeat, so a job that reports progress
 * needs no separate heartbeat write: one running job costs about one round trip a second in all.
 */
const PROGRESS_WRITE_MS = 2_000;

/** Settings of a {@link JobRunner}. */
export interface JobRunnerSettings {
  /**
   * Results are deleted this long after completion; until then they are stored with an expiry this far ahead, so a
   * result whose job never completes (aborted, process killed) is deleted by retention too.
   */
  resultsMs: number;
  /** How often a running job's heartbeat is written (which also checks that the job is still `ongoing`). */
  heartbeatMs: number;
  /** Per-job deadline. */
  timeout: JobTimeout;
  /** Runs of one job at most (a queue with retries hands a job again when its worker died). */
  maxAttempts: number;
  /**
   * How long an engine still working after its job ended (aborted: a cancel, the deadline, shutdown) may take to stop
   * before its work folder is removed anyway (`limits.engineStopGraceMs`).
   */
  engineStopGraceMs: number;
}

/**
 * Runs one job from `pending` to a final state, and ends jobs early (`dangerousFlag`, shutdown).
 *
 * Everything after the claim (`pending → ongoing`) is one guarded path: whatever throws, the job ends
 * in `error` with a kept reason, its heartbeat and deadline timers stop and its work folder goes. The
 * engine's signal aborts when the deadline passes, when the job is ended from outside (here, or by
 * another process: heard as a {@link JobEvents} announcement, or found by the next heartbeat when an
 * announcement was lost), or at shutdown; `run` then returns at once even if the engine ignores the
 * signal, so its queue slot is free again and nothing it produces later is stored; its work folder goes once the
 * engine has stopped (at most {@link JobRunnerSettings.engineStopGraceMs} later), which {@link JobRunner.stopped}
 * waits for.
 */
@injectable()
export class JobRunner {
  /** How the files an engine made are checked and stored. */
  private readonly outputs: OutputDeps;
  private readonly running = new Map<string, AbortController>();
  /** The attempt each running job holds, so shutdown ends only its own run. */
  private readonly attempts = new Map<string, JobExpectation>();
  /** Running jobs whose kind resumes after a stop (`KindSpec.resumesAfterStop`): shutdown leaves them `ongoing`. */
  private readonly resumable = new Set<string>();
  /** Work folders waiting for an engine that outlived its run to stop (see {@link removeWorkDir}). */
  private readonly stopping = new Set<Promise<void>>();

  constructor(
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    /** How each kind runs. */
    @inject(SERVICES.Kinds) private readonly kinds: KindRegistry,
    /** What the kinds may use. */
    @inject(SERVICES.KindServices) private readonly services: KindServices,
    /** Checks an engine's output before it is stored. */
    @inject(SERVICES.MediaProbe) probe: ProbeFn,
    @inject(SERVICES.WorkDirs) private readonly workDirs: OwnedDirs,
    @inject(SERVICES.JobRunnerSettings) private readonly settings: JobRunnerSettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    /** Announcements of jobs ended or taken over anywhere; without them only the heartbeat notices. */
    @inject(TOKENS.JobEvents, { isOptional: true }) private readonly events?: JobEvents,
  ) {
    this.outputs = { blobs, probe, provisionalExpiryMs: settings.resultsMs, logger };
  }

  /**
   * Takes the job (compare-and-set `pending → ongoing`, attempt 1) and runs it; returns at once if another
   * worker has it. With `delivery.takeOver` (a queue handing the job again because its worker died), an
   * `ongoing` job is taken over with the next attempt, or ends `interrupted` once `maxAttempts` runs began.
   */
  async run(uid: string, delivery: Delivery = { takeOver: false }): Promise<RunOutcome> {
    const job = await this.claim(uid, delivery);
    if (!job) return 'ended';
    const expect: JobExpectation = { attempt: job.attempt ?? 0 };
    const controller = new AbortController();
    this.running.set(uid, controller);
    this.attempts.set(uid, expect);
    const spec = this.kinds.find(job.kind);
    if (spec?.resumesAfterStop) this.resumable.add(uid);
    const budgetMs = jobBudgetMs(job, spec?.limits?.(this.services.options).timeout ?? this.settings.timeout);
    const deadline = setTimeout(() => controller.abort(timeoutError(budgetMs)), budgetMs);
    const alive: AliveWrites = { lastMs: Date.now() };
    const heartbeat = setInterval(() => void this.beat(job, expect, controller, alive), this.settings.heartbeatMs);
    // Ended or taken over elsewhere (a cancel, recovery, a later attempt): one read of the record decides.
    const stopListening = this.events?.listen((ended) => {
      if (ended === uid) void this.watch(job, expect, controller);
    });
    deadline.unref();
    heartbeat.unref();
    let workDir: string | undefined;
    /** The engine's work, settled either way (undefined until it starts), and whether it has. */
    let settled: Promise<void> | undefined;
    const workState = { done: false };
    try {
      workDir = await this.workDirs.create('job').catch((error: unknown) => {
        this.logger.error('could not make a job work folder', { uid, root: this.workDirs.root, error: String(error) });
        throw new JobFailedError({ code: 'processing_failed', message: 'the service could not make a work folder for the job' });
      });
      this.logger.info('job started', { uid, kind: job.kind, budgetMs, attempt: job.attempt });
      if (!spec) throw new JobFailedError({ code: 'engine_missing', message: `this service cannot run ${job.kind} jobs (no such job kind)` });
      const work = this.work(spec, job, { signal: controller.signal, onProgress: this.progressWriter(job, expect, controller, alive), workDir });
      settled = work.then(
        () => void (workState.done = true),
        () => void (workState.done = true),
      );
      const result = await untilAborted(work, controller.signal, (error) => {
        if (error === undefined) this.logger.warn('an engine finished after its job had ended; its output was discarded', { uid, kind: job.kind });
        else this.logger.debug('an engine stopped after its job had ended', { uid, kind: job.kind, error: String(error) });
      });
      // From here on the job is the store's to finish: a heartbeat or progress write that finds it completed
      // must not abort it, nor may shutdown (the compare-and-set to `completed` decides).
      clearInterval(heartbeat);
      stopListening?.();
      if (this.running.get(uid) === controller) this.running.delete(uid);
      if (await this.wanted(spec, job)) await this.complete(job, spec, result, expect);
      else await this.drop(job, result);
      return 'ended';
    } catch (error) {
      // Shutdown with a queue that retries: the job stays `ongoing` at this attempt and the queue hands it on.
      if (controller.signal.reason instanceof HandBack) return 'handed-back';
      // An engine's process crashed (a signal, the OOM killer) with a queue that retries: handed on like a dead
      // worker's job (the job stays `ongoing` at this attempt; the queue's next delivery takes it over), until the
      // last attempt, which ends in `error` with the crash's reason.
      if (delivery.retries === true && !controller.signal.aborted && isEngineCrash(error) && (job.attempt ?? 1) < this.settings.maxAttempts) {
        this.logger.warn('an engine process crashed; the job is handed back to the queue', { uid, kind: job.kind, attempt: job.attempt, error: String(error) });
        return 'handed-back';
      }
      // Once aborted, the abort's reason is why the job ends (a timeout, say), not what the engine threw.
      const failure = toFailure(controller.signal.aborted ? controller.signal.reason : error);
      // When the job was ended from outside or taken over by a later attempt, this compare-and-set loses and changes nothing.
      await this.fail(uid, failure.code, failure.message, expect);
      return 'ended';
    } finally {
      clearTimeout(deadline);
      clearInterval(heartbeat);
      stopListening?.();
      if (this.running.get(uid) === controller) this.running.delete(uid);
      if (this.attempts.get(uid) === expect) {
        this.attempts.delete(uid);
        this.resumable.delete(uid);
      }
      if (!controller.signal.aborted) controller.abort(new Error('the job has ended'));
      if (workDir) await this.removeWorkDir(uid, workDir, workState.done ? undefined : settled);
    }
  }

  /**
   * Removes a run's work folder once its engine has stopped writing there. After an abort the run returns at once
   * (its queue slot is free again), while the engine may still be stopping: the folder then goes when the engine's
   * work settles, or after {@link JobRunnerSettings.engineStopGraceMs}, and {@link stopped} waits for it.
   */
  private async removeWorkDir(uid: string, workDir: string, stillRunning: Promise<void> | undefined): Promise<void> {
    const remove = async (stillWorking: boolean) => {
      if (stillWorking) this.logger.warn('an engine was still working after its job ended; its work folder was removed anyway', { uid, graceMs: this.settings.engineStopGraceMs });
      await rm(workDir, { recursive: true, force: true }).catch((error: unknown) => {
        this.logger.warn('could not remove a job work folder; the next start will', { uid, workDir, error: String(error) });
      });
    };
    if (!stillRunning) return remove(false);
    let timer: NodeJS.Timeout | undefined;
    const late = Promise.race([stillRunning.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(resolve, this.settings.engineStopGraceMs, true)))])
      .then((stillWorking) => {
        clearTimeout(timer);
        return remove(stillWorking);
      })
      .finally(() => this.stopping.delete(late));
    this.stopping.add(late);
  }

  /**
   * Resolves once the engines of ended runs have stopped and their work folders are gone (each waited for
   * {@link JobRunnerSettings.engineStopGraceMs} at most): after {@link abortAll}, nothing of this runner writes to
   * the work folders any more. Never rejects.
   */
  async stopped(): Promise<void> {
    while (this.stopping.size > 0) await Promise.all([...this.stopping]);
  }

  /** Runs the kind's engine call, then checks and stores the files it made: the job's result. */
  private async work(spec: KindSpec, job: Job, engine: Pick<KindRunContext, 'signal' | 'onProgress' | 'workDir'>): Promise<JobResult> {
    const { blobs, services } = this;
    const context: KindRunContext = {
      ...engine,
      services,
      localFile: (blob, what) => localInputFile(blobs, blob, what, engine.workDir),
      engine: <T>(token: symbol, what: string): T => {
        const found = services.engine<T>(token);
        if (found === undefined) throw new JobFailedError({ code: 'engine_missing', message: `no ${what} is configured` });
        return found;
      },
    };
    const outputs = await spec.run(job, context);
    return storeOutputs(job, outputs, this.outputs, engine.signal, spec.resultIds?.(job));
  }

  /** The claim: `pending → ongoing` (attempt 1), or with `takeOver` an `ongoing` job's next attempt. */
  private async claim(uid: string, delivery: Delivery): Promise<Job | undefined> {
    const heartbeatAt = new Date().toISOString();
    const first = await this.store.transition(uid, ['pending'], 'ongoing', { heartbeatAt, attempt: 1 }, { attempt: 0 });
    if (first || !delivery.takeOver) return first;
    const current = await this.store.get(uid);
    if (!current || current.status !== 'ongoing' || isDangerous(current)) return undefined;
    const previous = current.attempt ?? 1;
    const expect = { attempt: current.attempt ?? 0 };
    if (previous >= this.settings.maxAttempts) {
      const message = `the worker running this job stopped before it finished, ${previous} times; submit the job again`;
      await this.fail(uid, 'interrupted', message, expect);
      return undefined;
    }
    const next = await this.store.transition(uid, ['ongoing'], 'ongoing', { heartbeatAt, attempt: previous + 1, progress: undefined }, expect);
    if (next) this.logger.warn('job taken over after its worker stopped', { uid, kind: next.kind, attempt: next.attempt });
    return next;
  }

  /**
   * Refreshes the heartbeat; when the job is no longer `ongoing` in the store (ended elsewhere) or a later
   * attempt took it over, aborts the engine.
   */
  private async beat(job: Job, expect: JobExpectation, controller: AbortController, alive: AliveWrites): Promise<void> {
    // A progress write within the last half period refreshed the heartbeat already.
    if (Date.now() - alive.lastMs < this.settings.heartbeatMs / 2) return;
    alive.lastMs = Date.now();
    try {
      const alive = await this.store.patch(job.uid, RUNNING_STATUSES, { heartbeatAt: new Date().toISOString() }, expect);
      if (!alive) this.endedElsewhere(job, controller);
    } catch (error) {
      this.logger.warn('could not write a job heartbeat', { uid: job.uid, error: String(error) });
    }
  }

  /** Reads the job's status back (it was announced); when it is no longer `ongoing` (canceled, ended elsewhere), aborts the engine. */
  private async watch(job: Job, expect: JobExpectation, controller: AbortController): Promise<void> {
    try {
      const current = await this.store.get(job.uid);
      // Ended elsewhere, or a later attempt took the job over (its worker looked dead): stop this run.
      if (current?.status !== 'ongoing' || (current.attempt ?? 0) !== (expect.attempt ?? 0)) this.endedElsewhere(job, controller, current?.failure);
    } catch (error) {
      // The heartbeat reports store trouble at warn and finds the end itself.
      this.logger.debug('could not read the status of a running job', { uid: job.uid, error: String(error) });
    }
  }

  /**
   * Writes progress at most every {@link PROGRESS_WRITE_MS} (and always the last step), with the heartbeat; a write
   * that finds the job no longer running stops the engine as the heartbeat does. Never throws.
   */
  private progressWriter(job: Job, expect: JobExpectation, controller: AbortController, alive: AliveWrites): (progress: JobProgress) => void {
    let lastWrite = 0;
    return (progress) => {
      const now = Date.now();
      if (now - lastWrite < PROGRESS_WRITE_MS && progress.done < progress.total) return;
      lastWrite = now;
      alive.lastMs = now;
      this.store.patch(job.uid, RUNNING_STATUSES, { progress, heartbeatAt: new Date(now).toISOString() }, expect).then(
        (running) => running || this.endedElsewhere(job, controller),
        (error: unknown) => this.logger.warn('could not write job progress', { uid: job.uid, error: String(error) }),
      );
    };
  }

  /** The store says the job is no longer `ongoing` (another process or recovery ended it): stop its engine. */
  private endedElsewhere(job: Job, controller: AbortController, failure?: JobFailure): void {
    if (controller.signal.aborted || this.running.get(job.uid) !== controller) return;
    this.logger.warn('job was ended by another writer; stopping its engine', { uid: job.uid, kind: job.kind, code: failure?.code });
    controller.abort(new JobFailedError(failure ?? { code: 'interrupted', message: 'the job was ended elsewhere while it ran' }));
  }

  private async complete(job: Job, spec: KindSpec, result: JobResult, expect: JobExpectation): Promise<void> {
    const blobIds = resultBlobIds(result);
    const completedAt = new Date();
    const expiresAt = new Date(completedAt.getTime() + this.settings.resultsMs).toISOString();
    // Results kept by their owner (an avatar's assets) lose their expiry before the job completes: they have fixed
    // ids, so a crash in between leaves them to the run that takes the job over.
    const keptUntil = spec.results === 'retention' ? expiresAt : undefined;
    await Promise.all(blobIds.map((id) => this.blobs.setExpiry(id, keptUntil)));
    const done = await this.store.transition(
      job.uid,
      sourcesOf('completed'),
      'completed',
      { result, completedAt: completedAt.toISOString() },
      expect,
    );
    if (!done) {
      // The job was ended meanwhile (dangerousFlag, recovery, a cancel) or a later attempt took it over: this result
      // must not survive, unless its ids are the kind's fixed ones and another attempt holds them (running or done).
      const now = spec.resultIds ? await this.store.get(job.uid) : undefined;
      if (now?.status === 'ongoing' || now?.status === 'completed') return;
      await this.deleteBlobs(job, blobIds, 'result of a job ended meanwhile');
      return;
    }
    this.logger.info('job completed', { uid: job.uid, kind: job.kind });
    await this.releaseScratch(done);
  }

  /** The kind's `stillWanted`; when it cannot tell (a store down), the job is wanted. */
  private async wanted(spec: KindSpec, job: Job): Promise<boolean> {
    if (!spec.stillWanted) return true;
    return spec.stillWanted(job, this.services).catch((error: unknown) => {
      this.logger.warn('could not tell whether a job is still wanted; it completes', { uid: job.uid, kind: job.kind, error: String(error) });
      return true;
    });
  }

  /** Deletes a job whose purpose is gone (its kind's `stillWanted`), with the files its run made. */
  private async drop(job: Job, result: JobResult): Promise<void> {
    this.logger.warn('job dropped: what it prepared no longer exists', { uid: job.uid, kind: job.kind });
    await this.deleteBlobs(job, resultBlobIds(result), 'result of a job no longer wanted');
    await this.releaseScratch(job);
    await this.store.delete(job.uid);
  }

  /**
   * Moves a job to `error` from any non-final state, aborting its engine if it runs here.
   * Returns false when the job was already final (or, with `expect`, another attempt holds it).
   */
  async fail(uid: string, code: string, message: string, expect?: JobExpectation): Promise<boolean> {
    const failed = await this.store.transition(uid, sourcesOf('error'), 'error', { failure: { code, message } }, expect);
    if (!expect || failed) this.running.get(uid)?.abort(new JobFailedError({ code, message }));
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

  /**
   * Aborts every running engine (service shutdown). The jobs end in `error` (`shutdown`), or with `handBack`
   * (a queue that retries) stay `ongoing` for another worker to take over. A job that resumes after a stop
   * (`KindSpec.resumesAfterStop`) stays `ongoing` either way; without `handBack` its heartbeat is marked long past so
   * that recovery, in this service's next start or another process, queues it again at its next sweep.
   */
  async abortAll(reason: string, options: { handBack?: boolean } = {}): Promise<void> {
    const ending: Promise<unknown>[] = [];
    for (const [uid, controller] of [...this.running]) {
      const attempt = this.attempts.get(uid);
      if (options.handBack || this.resumable.has(uid)) {
        // Nothing ends: the run returns 'handed-back' and the job stays `ongoing` at this attempt.
        this.logger.warn('job handed back at shutdown', { uid, resumes: options.handBack ? 'queue' : 'recovery' });
        controller.abort(new HandBack(reason));
        if (!options.handBack) ending.push(this.markStopped(uid, attempt));
      } else ending.push(this.fail(uid, 'shutdown', reason, attempt));
    }
    await Promise.all(ending);
  }

  /** Marks a handed-back job's heartbeat as long past, so recovery takes it up at once. Never rejects. */
  private async markStopped(uid: string, expect: JobExpectation | undefined): Promise<void> {
    await this.store.patch(uid, ['ongoing'], { heartbeatAt: new Date(0).toISOString() }, expect).catch((error: unknown) => {
      this.logger.warn('could not mark a handed-back job; it resumes once its heartbeat is stale', { uid, error: String(error) });
    });
  }
}

/** When a running job's heartbeat was last written (by the heartbeat or with its progress). */
interface AliveWrites {
  lastMs: number;
}

/**
 * How a run ended: the job reached a final state or was left to another attempt (`ended`), or was handed back to a
 * queue that retries (at shutdown, or after its engine's process crashed).
 */
export type RunOutcome = 'ended' | 'handed-back';

/** The abort reason of a run handed back to the queue at shutdown. */
class HandBack extends Error {
  constructor(reason: string) {
    super(`handed back to the queue: ${reason}`);
    this.name = 'HandBack';
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
