import { EngineCrashError } from '../../domain/engine-crash.js';
import { availableParallelism } from 'node:os';
import { describeExit, holdChild, killChild, killGroup, sendToChild, startChild, type EngineChild } from './child.js';
import type { ChildModule } from './child-module.js';
import { reviveError, serializeError, type FromTaskWorker, type SerializedError, type ToTaskWorker } from './task-protocol.js';

/** Options of a {@link TaskPool}. */
export interface TaskPoolOptions {
  /** Named in errors and process titles, e.g. `lip-sync analysis`. */
  name: string;
  /** The child's module (see `childModule`); it calls `serveTasks`. */
  module: ChildModule;
  /** Most children at once; further tasks wait (default: the number of CPU cores). */
  maxWorkers?: number;
  /** How long a child without a task waits for the next before it ends (default {@link TASK_WORKER_IDLE_MS}). */
  idleMs?: number;
  /**
   * How long an aborted task may take to stop before its child is killed (default {@link TASK_ABORT_GRACE_MS}).
   */
  abortGraceMs?: number;
  /** V8 old-space limit of each child: a child past it ends (its task fails), the host does not. */
  maxOldGenerationSizeMb?: number;
}

/** Default {@link TaskPoolOptions.idleMs}: starting a child loads its modules and models (a few hundred ms). */
export const TASK_WORKER_IDLE_MS = 30_000;
/** Default {@link TaskPoolOptions.abortGraceMs}. */
export const TASK_ABORT_GRACE_MS = 1_000;

/** How one call of {@link TaskPool.run} is told about its task. */
export interface RunTaskOptions<Event, Input = never> {
  /** Aborting it stops the task in its worker; `run` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once the task is handed to a child (it may have waited for one before). */
  onPosted?: () => void;
  /** Called on the caller's thread with each event the task emits (e.g. progress). */
  onEvent?: (event: Event) => void;
  /**
   * Sent to the task once it resolves (the task's `context.input`), so that a task can start its setup before
   * something it needs later is known. A rejection sends nothing: the caller stops the task (its `signal`).
   */
  input?: PromiseLike<Input>;
}

interface PooledWorker {
  child: EngineChild;
  /** The task it runs, if any. */
  current?: Running;
  idleTimer?: NodeJS.Timeout;
  /** What the child reported before it exited on an uncaught error. */
  fatal?: SerializedError;
  /** Why the child can run nothing more (it could not start, or it exited): a task given to it fails with this. */
  failure?: Error;
}

/** A task waiting for a child: handed one, or failed when none can be started. */
interface Waiter {
  take(worker: PooledWorker): void;
  fail(error: Error): void;
}

interface Running {
  id: number;
  /** Settles the caller's promise once, from whichever of done / failed / crash / abort comes first. */
  settle(outcome: { result: unknown } | { error: Error }): void;
  onEvent?: (event: never) => void;
}

/**
 * A lazily started pool of child processes that each run one task at a time: CPU-heavy and native work (feature
 * extraction, onnxruntime sessions, image decoding, canvas drawing, DSP loops, process spawns) runs there instead
 * of on the host's event loop, and a crash of native code (a SIGSEGV, a glibc abort) ends that child, never the
 * host. Children start on first use, are reused, and end after {@link TaskPoolOptions.idleMs} without work; idle
 * ones never keep the host alive. Aborting a task's signal asks its child to stop and kills the child (SIGKILL) if
 * it has not stopped within {@link TaskPoolOptions.abortGraceMs}; a child that crashes (uncaught error, heap limit,
 * exit, signal) fails only its task and is replaced by a fresh one for the next task.
 *
 * Children, not worker threads: a native addon's abort in a thread (onnxruntime-node's `Napi::Error` thrown while
 * a thread that loaded it is terminated, heap corruption) kills the whole process, and a thread cannot be ended
 * safely while it runs native code.
 */
export class TaskPool<Task, Result, Event = never, Input = never> {
  private readonly workers = new Set<PooledWorker>();
  private readonly idle: PooledWorker[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly maxWorkers: number;
  /** Children being killed: {@link close} waits for them too. */
  private readonly ending = new Set<Promise<void>>();
  private lastId = 0;
  private closed = false;

  constructor(private readonly options: TaskPoolOptions) {
    this.maxWorkers = Math.max(1, options.maxWorkers ?? availableParallelism());
  }

  /** Runs `task` on a worker; resolves with its result or rejects with its error (or the abort reason). */
  async run(task: Task, options: RunTaskOptions<Event, Input> = {}): Promise<Result> {
    const { signal } = options;
    signal?.throwIfAborted();
    const worker = await this.acquire(signal);
    if (signal?.aborted) {
      // Aborted while the child was being handed over: the task never starts.
      this.release(worker);
      throw abortReason(signal);
    }
    const id = ++this.lastId;
    try {
      return await new Promise<Result>((resolve, reject) => {
        let settled = false;
        let grace: NodeJS.Timeout | undefined;
        const onAbort = () => {
          this.post(worker, { type: 'abort', id, reason: serializeError(signal?.reason) });
          grace = setTimeout(() => {
            // Not stopped in time: kill the child (its work stops at once; its own children see their pipes close).
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
        // A child that could not start, or exited while it was handed over, runs nothing.
        if (worker.failure) worker.current.settle({ error: worker.failure });
        else {
          this.post(worker, { type: 'run', id, task });
          options.input?.then(
            (input) => {
              if (worker.current?.id === id) this.post(worker, { type: 'input', id, input });
            },
            () => undefined,
          );
          options.onPosted?.();
        }
      });
    } finally {
      this.release(worker);
    }
  }

  /** Children started and not ended (for tests and diagnostics). */
  get size(): number {
    return this.workers.size;
  }

  /** Children waiting for a task (for tests and diagnostics). */
  get idleCount(): number {
    return this.idle.length;
  }

  /** Process ids of the children started and not ended (for tests and diagnostics). */
  get pids(): number[] {
    return [...this.workers].flatMap((worker) => (worker.child.pid === undefined ? [] : [worker.child.pid]));
  }

  /**
   * Ends every child now (running tasks fail, waiting ones are refused, later runs too) and resolves once every
   * child this pool started has exited.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error(`the ${this.options.name} pool is closed`));
    await Promise.all([...[...this.workers].map((worker) => this.end(worker)), ...this.ending]);
  }

  private post(worker: PooledWorker, message: ToTaskWorker<Task, Input>): void {
    sendToChild(worker.child, message);
  }

  private acquire(signal: AbortSignal | undefined): Promise<PooledWorker> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} pool is closed`));
    const pooled = this.idle.pop();
    if (pooled) {
      clearTimeout(pooled.idleTimer);
      holdChild(pooled.child, true);
      return Promise.resolve(pooled);
    }
    if (this.workers.size < this.maxWorkers) return this.startOrFail();
    return new Promise<PooledWorker>((resolve, reject) => {
      const waiter: Waiter = {
        take: (worker) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(worker);
        },
        fail: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A fresh child; rejects (instead of throwing) when the process cannot be started at all (e.g. no memory to fork). */
  private startOrFail(): Promise<PooledWorker> {
    try {
      return Promise.resolve(this.start());
    } catch (error) {
      return Promise.reject(new Error(`the ${this.options.name} process could not be started: ${(error as Error).message}`, { cause: error }));
    }
  }

  /** Hands a worker that finished its task to the next waiting task, or parks it. */
  private release(worker: PooledWorker): void {
    if (!this.workers.has(worker)) {
      // It ended (crash, killed after an abort): a waiting task gets a fresh child (none once the pool is closed).
      const next = this.waiting.shift();
      if (next) this.startOrFail().then(next.take, next.fail);
      return;
    }
    const next = this.waiting.shift();
    if (next) return next.take(worker);
    if (this.closed) return void this.end(worker);
    holdChild(worker.child, false);
    worker.idleTimer = setTimeout(() => void this.end(worker), this.options.idleMs ?? TASK_WORKER_IDLE_MS);
    worker.idleTimer.unref();
    this.idle.push(worker);
  }

  private start(): PooledWorker {
    const { name, module, maxOldGenerationSizeMb } = this.options;
    const worker: PooledWorker = { child: startChild(module, { name, maxOldGenerationSizeMb }) };
    this.workers.add(worker);
    worker.child.on('message', (message: FromTaskWorker<Result, Event>) => {
      if (message.type === 'fatal') {
        worker.fatal = message.error;
        return;
      }
      const running = worker.current;
      if (!running || message.id !== running.id) return; // about a task that already ended
      if (message.type === 'event') {
        try {
          running.onEvent?.(message.event as never);
        } catch (error) {
          // The caller's listener (say, a logger that throws) must not throw out of this event handler into the host.
          running.settle({ error: error instanceof Error ? error : new Error(String(error)) });
        }
      }
      else if (message.type === 'done') running.settle({ result: message.result });
      else running.settle({ error: reviveError(message.error) });
    });
    // A child that cannot be started (e.g. no executable, no memory for a process) fails its task, also one handed
    // to it later; `exit` may not follow.
    worker.child.on('error', (error: Error) => {
      this.forget(worker);
      worker.failure ??= new Error(`the ${name} process failed: ${error.message}`, { cause: error });
      worker.current?.settle({ error: worker.failure });
    });
    // A crash fails the task it was running; the host only loses this child.
    worker.child.on('exit', (code, signal) => {
      this.forget(worker);
      // What a crashed child started (its ffmpeg processes) dies with it.
      killGroup(worker.child);
      // Messages sent before the exit may still be queued: give them one more turn.
      setImmediate(() => {
        const { fatal } = worker;
        worker.failure ??= fatal
          ? new Error(`the ${name} process failed: ${fatal.message}`, { cause: reviveError(fatal) })
          : new EngineCrashError(`${describeExit(name, code, signal)} before finishing its task`);
        worker.current?.settle({ error: worker.failure });
      });
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
    const ended = killChild(worker.child);
    this.ending.add(ended);
    try {
      await ended;
    } finally {
      this.ending.delete(ended);
    }
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error(String(reason ?? 'aborted'));
}
