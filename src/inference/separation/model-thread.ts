/**
 * The separation model on a worker thread of its own. onnxruntime-node 1.16 runs a session on the thread that calls
 * it, so a separation that ran its model on its main thread did nothing else meanwhile: 38 runs of ~20 ms for 300 s
 * of audio, while the STFTs, the syntheses and the masks' mapping (the rest of that thread's work) waited. On its own
 * thread the model runs while the main thread goes on with the next frames (MaskStream keeps one chunk running
 * ahead), so a separation uses up to two cores (see docs/performance.md for the figures).
 *
 * One thread per process, started on the first load and kept for the process's life (unreferenced: it never keeps
 * the process alive): onnxruntime-node's native binding, once loaded on a thread that then ends, cannot be loaded on
 * another ("Module did not self-register"), so the thread is never ended here and loads every model asked for. A
 * native crash on the thread ends the process it runs in: by default the separation's child process, which the
 * engine reports as crashed; with the engine's `thread: 'main'`, the host, as a crash of the model on the host's own
 * thread did before (there the thread takes the model's runs off the host's event loop).
 */
import type { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { reviveError, type SerializedError } from '../workers/task-protocol.js';
import { startThread } from '../workers/thread-module.js';
import { DEFAULT_SEPARATION_MODEL, SeparationModel, type MaskModel, type SeparationModelOptions } from './model.js';

/** To the thread: load a model (answered `loaded` or `failed` with its key), or one run of a loaded model. */
export type ToModelThread =
  | { type: 'load'; key: string; model: string; options: SeparationModelOptions }
  | { type: 'mask'; id: number; key: string; mag: Float32Array; frames: number };

/** From the thread: a model is loaded, a run's masks, or why a load (`key`) or a run (`id`) failed. */
export type FromModelThread =
  | { type: 'loaded'; key: string; executionProviders: string[] }
  | { type: 'mask'; id: number; mask: Float32Array }
  | { type: 'failed'; key?: string; id?: number; error: SerializedError };

/** A model loaded on the thread; see the module comment. */
export class SeparationModelThread implements MaskModel {
  private static readonly models = new Map<string, Promise<MaskModel>>();

  private constructor(
    private readonly thread: ModelThread,
    private readonly key: string,
    readonly executionProviders: readonly string[],
  ) {}

  /**
   * The model on the process's model thread (loaded once per model file and options), or, where no thread can start
   * (a bundled package) or once the thread has stopped (a failure on it), on this one. Rejects with the load's error
   * (a missing or unreadable model); the next load tries again.
   */
  static load(model: string | URL = DEFAULT_SEPARATION_MODEL, options: SeparationModelOptions = {}): Promise<MaskModel> {
    const path = model instanceof URL ? fileURLToPath(model) : model;
    const key = `${path}|${options.intraOpNumThreads ?? 1}|${(options.executionProviders ?? ['cpu']).join(',')}`;
    let loaded = SeparationModelThread.models.get(key);
    if (!loaded || ModelThread.stopped) {
      const thread = ModelThread.get();
      loaded = thread
        ? thread.load(key, path, options).then((providers) => new SeparationModelThread(thread, key, providers))
        : SeparationModel.load(path, options);
      const attempt = loaded;
      SeparationModelThread.models.set(key, attempt);
      attempt.catch(() => {
        if (SeparationModelThread.models.get(key) === attempt) SeparationModelThread.models.delete(key);
      });
    }
    return loaded;
  }

  mask(mag: Float32Array, frames: number): Promise<Float32Array> {
    return this.thread.mask(this.key, mag, frames);
  }
}

/** The process's model thread: requests by id, answers in order. */
class ModelThread {
  private static current: ModelThread | undefined;
  /** Set once no thread could start, or the thread stopped: models then run on the calling thread. */
  private static unavailable = false;

  /** Whether the thread stopped (models loaded on it are loaded again, on the calling thread). */
  static get stopped(): boolean {
    return ModelThread.current?.broken !== undefined;
  }

  private readonly loads = new Map<string, { resolve(providers: string[]): void; reject(error: Error): void }[]>();
  private readonly runs = new Map<number, { resolve(mask: Float32Array): void; reject(error: Error): void }>();
  private nextId = 0;
  /** Why the thread can no longer answer; later requests reject with it. */
  private broken: Error | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromModelThread) => this.answer(message));
    worker.on('error', (error) => this.stop(new Error(`the separation model's thread failed: ${error.message}`, { cause: error })));
    worker.on('exit', (code) => this.stop(new Error(`the separation model's thread exited (code ${code})`)));
    // After the listeners (adding a 'message' listener refs the thread again): see hold().
    worker.unref();
  }

  /** Keeps the process alive while a request waits for the thread, and only then. */
  private hold(): void {
    if (this.loads.size + this.runs.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  /**
   * The thread, started on the first call; none where it cannot start, nor once it stopped (onnxruntime's binding
   * would not load on a second thread).
   */
  static get(): ModelThread | undefined {
    if (ModelThread.unavailable) return undefined;
    if (ModelThread.current) return ModelThread.current;
    const worker = startThread(import.meta.url, 'model-worker');
    if (!worker) {
      ModelThread.unavailable = true;
      return undefined;
    }
    return (ModelThread.current = new ModelThread(worker));
  }

  load(key: string, model: string, options: SeparationModelOptions): Promise<string[]> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise<string[]>((resolve, reject) => {
      const waiting = this.loads.get(key) ?? [];
      waiting.push({ resolve, reject });
      this.loads.set(key, waiting);
      this.hold();
      this.worker.postMessage({ type: 'load', key, model, options } satisfies ToModelThread);
    });
  }

  mask(key: string, mag: Float32Array, frames: number): Promise<Float32Array> {
    if (this.broken) return Promise.reject(this.broken);
    const id = this.nextId++;
    // A copy (the caller keeps its array), transferred to the thread, which answers in it.
    const request = mag.slice();
    return new Promise<Float32Array>((resolve, reject) => {
      this.runs.set(id, { resolve, reject });
      this.hold();
      this.worker.postMessage({ type: 'mask', id, key, mag: request, frames } satisfies ToModelThread, [request.buffer]);
    });
  }

  private answer(message: FromModelThread): void {
    if (message.type === 'mask' || (message.type === 'failed' && message.id !== undefined)) {
      const id = message.id!;
      const run = this.runs.get(id);
      this.runs.delete(id);
      this.hold();
      if (message.type === 'mask') run?.resolve(message.mask);
      else run?.reject(reviveError(message.error));
      return;
    }
    const key = message.key!;
    const waiting = this.loads.get(key) ?? [];
    this.loads.delete(key);
    this.hold();
    for (const load of waiting) {
      if (message.type === 'loaded') load.resolve(message.executionProviders);
      else load.reject(reviveError(message.error));
    }
  }

  /** Fails everything waiting; models are loaded on the calling thread from then on. */
  private stop(error: Error): void {
    this.broken ??= error;
    ModelThread.unavailable = true;
    for (const run of this.runs.values()) run.reject(this.broken);
    for (const waiting of this.loads.values()) for (const load of waiting) load.reject(this.broken);
    this.runs.clear();
    this.loads.clear();
    this.hold();
  }
}
