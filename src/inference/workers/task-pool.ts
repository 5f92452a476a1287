import { availableParallelism } from 'node:os';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { workerModuleOptions, type WorkerModule } from './module-entry.js';
import { reviveError, serializeError, type FromTaskWorker, type ToTaskWorker } from './task-protocol.js';

/** Options of a {@link TaskPool}. */
export interface TaskPoolOptions {
  /** Named in errors and thread names, e.g. `lip-sync analysis`. */
  name: string;
  /** The worker module (see `workerModule`); it calls `serveTasks`. */
  module: WorkerModule;
  /** Most workers at once; further tasks wait (default: the number of CPU cores). */
  maxWorkers?: number;
  /** How long a worker without a task waits for the next before it ends (default {@link TASK_WORKER_IDLE_MS}). */
  idleMs?: number;
  /**
   * How long an aborted task may take to stop before its worker is terminated (default
   * {@link TASK_ABORT_GRACE_MS}).
   */
  abortGraceMs?: number;
  /** V8 heap limits of each worker: a worker past them ends (its task fails), the host does not. */
  resourceLimits?: ResourceLimits;
}

/** Default {@link TaskPoolOptions.idleMs}: starting a worker loads its modules and models (a few hundred ms). */
export const TASK_WORKER_IDLE_MS = 30_000;
/** Default {@link TaskPoolOptions.abortGraceMs}. */
export const TASK_ABORT_GRACE_MS = 1_000;

/** How one call of {@link TaskPool.run} is told about its task. */
export interface RunTaskOptions<Event> {
  /** Aborting it stops the task in its worker; `run` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called on the caller's thread with each event the task emits (e.g. progress). */
  onEvent?: (event: Event) => void;
}

interface PooledWorker {
  thread: Worker;
  /** The task it runs, if any. */
  current?: Running;
  idleTimer?: NodeJS.Timeout;
}

interface Running {
  id: number;
  /** Settles the caller's promise once, from whichever of done / failed / crash / abort comes first. */
  settle(outcome: { result: unknown } | { error: Error }): void;
  onEvent?: (event: never) => void;
}

/**
 * A lazily started pool of worker threads that each run one task at a time: CPU-heavy work (feature extraction,
 * model runs, DSP loops, process spawns) runs there instead of on the host's event loop. Workers start on first use,
 * are reused, and end after {@link TaskPoolOptions.idleMs} without work; idle ones never keep the process alive.
 * Aborting a task's signal asks its worker to stop and terminates the worker if it has not stopped within
 * {@link TaskPoolOptions.abortGraceMs}; a worker that crashes (uncaught error, heap limit, exit) fails only its task.
 */
export class TaskPool<Task, Result, Event = never> {
  private readonly workers = new Set<PooledWorker>();
  private readonly idle: PooledWorker[] = [];
  private readonly waiting: ((worker: PooledWorker) => void)[] = [];
  private readonly maxWorkers: number;
  private lastId = 0;

  constructor(private readonly options: TaskPoolOptions) {
    this.maxWorkers = Math.max(1, options.maxWorkers ?? availableParallelism());
  }

  /** Runs `task` on a worker; resolves with its result or rejects with its error (or the abort reason). */
  async run(task: Task, options: RunTaskOptions<Event> = {}): Promise<Result> {
    const { signal } = options;
    signal?.throwIfAborted();
    const worker = await this.acquire(signal);
    const id = ++this.lastId;
    try {
      return await new Promise<Result>((resolve, reject) => {
        let settled = false;
        let grace: NodeJS.Timeout | undefined;
        const onAbort = () => {
          this.post(worker, { type: 'abort', id, reason: serializeError(signal?.reason) });
          grace = setTimeout(() => {
            // Not stopped in time: end the thread (its work stops at once; its children see their pipes close).
            worker.current?.settle({ error: abortReason(signal) });
            void this.end(worker);
          }, this.options.abortGraceMs ?? TASK_ABORT_GRACE_MS);
          grace.unref();
        };
        worker.current = {
          id,
          onEvent: options.onEvent as ((event: never) => void) | undefined,
          settle: (outcome) => {
            if (settled) return;
            settled = true;
            clearTimeout(grace);
            signal?.removeEventListener('abort', onAbort);
            worker.current = undefined;
            // An aborted task rejects with the abort's reason, whatever the worker answered.
            if (signal?.aborted) reject(abortReason(signal));
            else if ('error' in outcome) reject(outcome.error);
            else resolve(outcome.result as Result);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.post(worker, { type: 'run', id, task });
      });
    } finally {
      this.release(worker);
    }
  }

  /** Workers started and not ended (for tests and diagnostics). */
  get size(): number {
    return this.workers.size;
  }

  /** Workers waiting for a task (for tests and diagnostics). */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Ends every worker now; running tasks fail. */
  async close(): Promise<void> {
    await Promise.all([...this.workers].map((worker) => this.end(worker)));
  }

  private post(worker: PooledWorker, message: ToTaskWorker<Task>): void {
    worker.thread.postMessage(message);
  }

  private acquire(signal: AbortSignal | undefined): Promise<PooledWorker> {
    const pooled = this.idle.pop();
    if (pooled) {
      clearTimeout(pooled.idleTimer);
      pooled.thread.ref();
      return Promise.resolve(pooled);
    }
    if (this.workers.size < this.maxWorkers) return Promise.resolve(this.start());
    return new Promise<PooledWorker>((resolve, reject) => {
      const take = (worker: PooledWorker) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(worker);
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(take);
    });
  }

  /** Hands a worker that finished its task to the next waiting task, or parks it. */
  private release(worker: PooledWorker): void {
    if (!this.workers.has(worker)) {
      // It ended (crash, terminated after an abort): a waiting task gets a fresh worker.
      const next = this.waiting.shift();
      if (next) next(this.start());
      return;
    }
    const next = this.waiting.shift();
    if (next) return next(worker);
    worker.thread.unref();
    worker.idleTimer = setTimeout(() => void this.end(worker), this.options.idleMs ?? TASK_WORKER_IDLE_MS);
    worker.idleTimer.unref();
    this.idle.push(worker);
  }

  private start(): PooledWorker {
    const thread = new Worker(this.options.module, {
      ...workerModuleOptions(this.options.module),
      name: this.options.name,
      resourceLimits: this.options.resourceLimits,
    });
    const worker: PooledWorker = { thread };
    this.workers.add(worker);
    thread.on('message', (message: FromTaskWorker<Result, Event>) => {
      const running = worker.current;
      if (!running || message.id !== running.id) return; // about a task that already ended
      if (message.type === 'event') running.onEvent?.(message.event as never);
      else if (message.type === 'done') running.settle({ result: message.result });
      else running.settle({ error: reviveError(message.error) });
    });
    // A crash fails the task it was running; the host only loses this worker.
    thread.on('error', (error: Error) => {
      this.forget(worker);
      worker.current?.settle({ error: new Error(`the ${this.options.name} worker failed: ${error.message}`, { cause: error }) });
    });
    thread.on('exit', (code) => {
      this.forget(worker);
      worker.current?.settle({ error: new Error(`the ${this.options.name} worker exited (code ${code}) before finishing its task`) });
    });
    return worker;
  }

  private forget(worker: PooledWorker): void {
    clearTimeout(worker.idleTimer);
    this.workers.delete(worker);
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
  }

  private async end(worker: PooledWorker): Promise<void> {
    this.forget(worker);
    await worker.thread.terminate();
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}
