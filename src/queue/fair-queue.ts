/** Options of a {@link FairQueue}. */
export interface FairQueueOptions {
  /** Tasks running at once, all keys together. */
  concurrency: number;
  /**
   * Tasks of one key that may wait for a slot; one more is refused with {@link QueueFullError}. A key with nothing
   * running or waiting may always queue its task (it is the next served): with 0, a key's task is refused only while
   * the slots are busy and the key already has a task running or waiting, never because of other keys' tasks.
   */
  maxWaitingPerKey: number;
  /** Duration assumed for a task until some have been measured, in ms (for {@link QueueFullError.retryAfterSec}). Default 2 000. */
  typicalTaskMs?: number;
}

/** A task refused because its key already has {@link FairQueueOptions.maxWaitingPerKey} tasks waiting (see there for 0). */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';

  constructor(
    /** Tasks of the key waiting. */
    readonly waiting: number,
    /** About how long until one of them has started, in whole seconds (at least 1, at most 60). */
    readonly retryAfterSec: number,
  ) {
    super(`${waiting} requests of this key are already waiting`);
  }
}

interface Entry {
  /** Order of arrival, for ties between keys never served. */
  seq: number;
  start(): void;
  cancel(reason: unknown): void;
}

interface KeyState {
  waiting: Entry[];
  running: number;
  /** Start order of the key's last task to start (0: none yet while it has been active). */
  lastStart: number;
}

/** Whether a key has nothing running or waiting (its task may wait whatever `maxWaitingPerKey` is: it goes next). */
function isIdle(state: KeyState): boolean {
  return state.running === 0 && state.waiting.length === 0;
}

/** Weight of the newest task duration in the running average. */
const AVERAGE_WEIGHT = 0.3;

/**
 * Runs tasks of many keys on a few slots, fairly: each key's tasks wait in their own FIFO, and a free slot goes to
 * the key whose last task started longest ago (a key with none started goes first), i.e. round-robin between the
 * keys that wait, so one key's burst delays another key by at most one task per slot. A key may have at most
 * `maxWaitingPerKey` tasks waiting (at least one when it has nothing running); one more is refused at once with
 * {@link QueueFullError}, which says about when to retry. Keys are forgotten once they have nothing waiting or running.
 */
export class FairQueue {
  private readonly keys = new Map<string, KeyState>();
  private running = 0;
  private starts = 0;
  private arrivals = 0;
  private averageMs: number;

  constructor(private readonly options: FairQueueOptions) {
    this.averageMs = options.typicalTaskMs ?? 2_000;
  }

  /**
   * Runs `task` for `key` once a slot is free and it is the key's turn; resolves or rejects as the task does.
   * Aborting `signal` while it waits removes it (rejecting with the signal's reason); a started task is the
   * caller's to stop.
   * @throws QueueFullError (rejects) when the slots are busy and the key has `maxWaitingPerKey` tasks waiting
   *   already (with 0: when it has a task running or waiting).
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const state = this.stateOf(key);
    // A refused key is not idle (it has a task running or waiting), so it stays known.
    if (this.running >= this.options.concurrency && state.waiting.length >= this.options.maxWaitingPerKey && !isIdle(state)) {
      return Promise.reject(new QueueFullError(state.waiting.length, this.retryAfterSec()));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => entry.cancel(signal?.reason);
      const entry: Entry = {
        seq: ++this.arrivals,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          const started = performance.now();
          void Promise.resolve()
            .then(task)
            .then(resolve, reject)
            .finally(() => this.finished(key, state, performance.now() - started));
        },
        cancel: (reason) => {
          const at = state.waiting.indexOf(entry);
          if (at < 0) return;
          state.waiting.splice(at, 1);
          this.forgetIfIdle(key, state);
          reject(reason);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.push(entry);
      this.pump();
    });
  }

  /** Tasks of `key` waiting for a slot. */
  waiting(key: string): number {
    return this.keys.get(key)?.waiting.length ?? 0;
  }

  /** Tasks running now, all keys together. */
  get active(): number {
    return this.running;
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { waiting: [], running: 0, lastStart: 0 }));
    return state;
  }

  private forgetIfIdle(key: string, state: KeyState): void {
    if (isIdle(state) && this.keys.get(key) === state) this.keys.delete(key);
  }

  /** Starts waiting tasks while slots are free, each time for the key served longest ago. */
  private pump(): void {
    while (this.running < this.options.concurrency) {
      let next: KeyState | undefined;
      for (const state of this.keys.values()) {
        if (state.waiting.length === 0) continue;
        if (!next || state.lastStart < next.lastStart || (state.lastStart === next.lastStart && state.waiting[0]!.seq < next.waiting[0]!.seq)) next = state;
      }
      if (!next) return;
      const entry = next.waiting.shift()!;
      next.lastStart = ++this.starts;
      next.running++;
      this.running++;
      entry.start();
    }
  }

  private finished(key: string, state: KeyState, tookMs: number): void {
    this.running--;
    state.running--;
    this.averageMs += AVERAGE_WEIGHT * (tookMs - this.averageMs);
    this.forgetIfIdle(key, state);
    this.pump();
  }

  /** About when a refused key's next waiting task starts: one average task for each key waiting, per slot. */
  private retryAfterSec(): number {
    let keysWaiting = 0;
    for (const state of this.keys.values()) if (state.waiting.length > 0) keysWaiting++;
    const ms = (this.averageMs * Math.max(1, keysWaiting)) / this.options.concurrency;
    return Math.min(60, Math.max(1, Math.ceil(ms / 1000)));
  }
}
