/**
 * {@link SeparationEngine} on the ONNX mask net: see separate.ts for the method. The whole separation (probe, ffmpeg
 * decodes and encodes, STFT, model, iSTFT) runs on a pooled child process by default, so the host's event loop only
 * sends the task and receives progress.
 */
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../domain/logger.js';
import type { EngineContext, SeparationEngine, SeparationInput, SeparationOutput } from '../../domain/engines.js';
import { resolveMediaBinaries, type MediaBinaries } from '../media/index.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';
import { DEFAULT_SEPARATION_MODEL, SeparationModel, type MaskModel } from './model.js';
import { separateOnThisThread, type SeparationSettings } from './separate.js';
import type { SeparationEvent, SeparationTask } from './separation-task.js';

/** Options of {@link OnnxSeparationEngine}. */
export interface OnnxSeparationEngineOptions {
  /** The ONNX model (default: models/separation/separator.onnx shipped with the package). */
  modelPath?: string | URL;
  /** Output format of both stems (default `wav`, 16-bit PCM; `mp3` is CBR at {@link mp3BitrateKbps}). */
  format?: 'wav' | 'mp3';
  /** mp3 bitrate in kbit/s (default 192). */
  mp3BitrateKbps?: number;
  /** ffmpeg/ffprobe (default: {@link resolveMediaBinaries}()). */
  binaries?: MediaBinaries;
  /**
   * onnxruntime threads per inference (default 1). The model runs on a thread of its own in the separation's child
   * process, beside the thread that computes the STFTs, so one separation uses up to two cores with the default.
   */
  intraOpNumThreads?: number;
  /** onnxruntime execution providers in order of preference (default `['cpu']`). */
  executionProviders?: string[];
  /** Seconds of audio per model run (default 8; memory grows with it, not with the input). */
  chunkSeconds?: number;
  /**
   * Longest input accepted, in seconds (default {@link MAX_SEPARATION_SECONDS}); longer inputs reject with an Error.
   * Memory does not grow with the length; this bounds the time a job holds a worker. Check it at creation too (400).
   */
  maxDurationSec?: number;
  /**
   * Where the execution provider in use is logged (info) once per model load, and cleanup problems (warn)
   * (default: the console).
   */
  logger?: Pick<Logger, 'info'> & Partial<Pick<Logger, 'warn'>>;
  /**
   * `'worker'` (default): the separation runs on a pooled child process (started on first use, ended after 30 s
   * idle), never blocking the event loop; `'main'`: on the calling thread. Without the worker's module next to this
   * one (the package was bundled into one file), the calling thread.
   */
  thread?: 'worker' | 'main';
}

/** Default longest input: 1 hour (about 2–3 minutes of one CPU core at the measured ≥ 20× real time). */
export const MAX_SEPARATION_SECONDS = 3600;

const CONTENT_TYPES = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

export class OnnxSeparationEngine implements SeparationEngine {
  private readonly format: 'wav' | 'mp3';
  private binariesPromise?: Promise<MediaBinaries>;
  private readonly logged = new Set<MaskModel>();
  /** Whether a worker's model load was logged (each worker loads its own copy; one line is enough). */
  private loggedWorkerModel = false;

  constructor(private readonly options: OnnxSeparationEngineOptions = {}) {
    this.format = options.format ?? 'wav';
    if (this.format !== 'wav' && this.format !== 'mp3') throw new Error(`unsupported separation output format: ${String(this.format)}`);
  }

  /** Loads the model on this thread (cached per thread) and logs the execution provider on first use. */
  async loadModel(): Promise<SeparationModel> {
    const model = await SeparationModel.load(this.options.modelPath ?? DEFAULT_SEPARATION_MODEL, {
      intraOpNumThreads: this.options.intraOpNumThreads ?? 1,
      executionProviders: this.options.executionProviders,
    });
    if (!this.logged.has(model)) {
      this.logged.add(model);
      this.logModel(model.executionProviders);
    }
    return model;
  }

  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    const { signal } = context;
    signal.throwIfAborted();
    this.binariesPromise ??= this.options.binaries ? Promise.resolve(this.options.binaries) : resolveMediaBinaries();
    const model = this.options.modelPath ?? DEFAULT_SEPARATION_MODEL;
    const settings: SeparationSettings = {
      modelPath: model instanceof URL ? fileURLToPath(model) : model,
      format: this.format,
      mp3BitrateKbps: this.options.mp3BitrateKbps,
      binaries: await this.binariesPromise,
      intraOpNumThreads: this.options.intraOpNumThreads ?? 1,
      executionProviders: this.options.executionProviders,
      chunkSeconds: this.options.chunkSeconds ?? 8,
      maxDurationSec: this.options.maxDurationSec ?? MAX_SEPARATION_SECONDS,
    };
    const workers = (this.options.thread ?? 'worker') === 'worker' ? separationPool() : undefined;
    if (workers) {
      await workers.run(
        { settings, input },
        {
          signal,
          onEvent: (event) => {
            if (event.type === 'progress') context.onProgress(event.progress);
            else if (event.type === 'warn') this.warn(event.message, event.fields);
            else if (!this.loggedWorkerModel) {
              this.loggedWorkerModel = true;
              this.logModel(event.executionProviders);
            }
          },
        },
      );
    } else {
      await separateOnThisThread(settings, input, signal, {
        onProgress: (progress) => context.onProgress(progress),
        onModel: (loaded) => {
          if (this.logged.has(loaded)) return;
          this.logged.add(loaded);
          this.logModel(loaded.executionProviders);
        },
        logger: { warn: (message, fields) => this.warn(message, fields) },
      });
    }
    return { contentType: CONTENT_TYPES[this.format], extension: this.format };
  }

  private logModel(executionProviders: readonly string[]): void {
    const fields = { executionProviders, intraOpNumThreads: this.options.intraOpNumThreads ?? 1 };
    if (this.options.logger) this.options.logger.info('source separation model loaded', fields);
    else console.info('[virtual-anchor] source separation model loaded', fields);
  }

  private warn(message: string, fields?: Record<string, unknown>): void {
    if (this.options.logger?.warn) this.options.logger.warn(message, fields);
    else console.warn(`[virtual-anchor] ${message}`, fields ?? '');
  }
}

/** The separation workers of the process, shared by every engine; started on first use. */
let pool: TaskPool<SeparationTask, void, SeparationEvent> | undefined;
const SEPARATION_WORKER = childModule(import.meta.url, 'separation-worker');

function separationPool(): TaskPool<SeparationTask, void, SeparationEvent> | undefined {
  if (!SEPARATION_WORKER) return undefined;
  // Each worker holds a ~3 MB model and one chunk of spectra; its heap stays small whatever the input length.
  return (pool ??= new TaskPool({ name: 'source separation', module: SEPARATION_WORKER, maxOldGenerationSizeMb: 512 }));
}

/** Separation workers started and not ended (for tests and diagnostics). */
export function separationWorkers(): number {
  return pool?.size ?? 0;
}
