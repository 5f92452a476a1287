import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AvatarDefinition } from '../avatar/definition.js';
import { RESTING_MOUTH, type MouthShape } from '../lipsync/mouth.js';
import { FrameRenderer } from './frame-renderer.js';
import type { FrameWorkerData, FromFrameWorker, ToFrameWorker } from './frame-worker-protocol.js';

/** One drawn frame: RGBA bytes, valid until {@link release} is called. */
export interface DrawnFrame {
  pixels: Uint8Array;
  /** Call once the pixels have been consumed (written into ffmpeg's pipe): the memory is reused. */
  release(): void;
}

/** Where frames are drawn: on a worker thread (default) or on the calling thread. */
export type RenderThread = 'worker' | 'main';

/** What a {@link FrameSource} draws with. */
export interface FrameSourceOptions {
  definition: AvatarDefinition;
  /** An image drawn to cover the frame behind the avatar. */
  backgroundPath?: string;
  /** `'worker'` (default) or `'main'`; see {@link FrameSource}. */
  thread?: RenderThread;
  /** Frames a worker may have drawn ahead of the encoder (default {@link DEFAULT_FRAME_SLOTS}, at least 2). */
  slots?: number;
}

/** Default of {@link FrameSourceOptions.slots}. */
export const DEFAULT_FRAME_SLOTS = 6;

/**
 * The frames of one lip-sync video. Opening one starts setting the renderer up (background, cached
 * layers), so that this overlaps with the audio analysis; {@link frames} then yields the frames in
 * order. With a worker thread, the worker draws the next frames into a small ring of shared memory
 * while the caller's thread writes earlier ones to ffmpeg: drawing never blocks the event loop and
 * memory stays bounded by `slots` frames. `'main'` draws on the calling thread, one frame at a time.
 * Always {@link close} it (also after {@link frames} has run).
 */
export abstract class FrameSource {
  static open(options: FrameSourceOptions): FrameSource {
    return (options.thread ?? 'worker') === 'worker' ? new WorkerFrameSource(options) : new InlineFrameSource(options);
  }

  /** Frames `0 … total − 1`, frame `i` with `mouths[i]` (the resting mouth past its end). Call once. */
  abstract frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame>;

  /** Stops drawing and frees the renderer (terminates the worker). Safe to call more than once. */
  abstract close(): Promise<void>;
}

class InlineFrameSource extends FrameSource {
  private readonly renderer: Promise<FrameRenderer>;

  constructor(options: FrameSourceOptions) {
    super();
    this.renderer = FrameRenderer.create(options.definition, { backgroundPath: options.backgroundPath });
    this.renderer.catch(() => undefined); // reported by frames()
  }

  async *frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame> {
    const renderer = await this.renderer;
    for (let index = 0; index < total; index++) {
      signal?.throwIfAborted();
      yield { pixels: renderer.render(index, mouths[index] ?? RESTING_MOUTH), release: () => undefined };
    }
  }

  async close(): Promise<void> {}
}

class WorkerFrameSource extends FrameSource {
  private readonly worker: Worker;
  private readonly ring: SharedArrayBuffer;
  private readonly frameBytes: number;
  private readonly inbox: FromFrameWorker[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private closed = false;

  constructor(options: FrameSourceOptions) {
    super();
    const slots = Math.max(2, options.slots ?? DEFAULT_FRAME_SLOTS);
    this.frameBytes = options.definition.width * options.definition.height * 4;
    this.ring = new SharedArrayBuffer(this.frameBytes * slots);
    const workerData: FrameWorkerData = { definition: options.definition, backgroundPath: options.backgroundPath, ring: this.ring, slots };
    const entry = workerEntry();
    this.worker = typeof entry === 'string' ? new Worker(entry, { eval: true, workerData }) : new Worker(entry, { workerData });
    this.worker.on('message', (message: FromFrameWorker) => {
      this.inbox.push(message);
      this.notify();
    });
    this.worker.on('error', (error) => {
      this.failure ??= error;
      this.notify();
    });
    this.worker.on('exit', (code) => {
      // Messages posted before the exit are delivered first; give them one more turn all the same.
      setImmediate(() => {
        this.failure ??= new Error(`the frame worker exited (code ${code}) before drawing every frame`);
        this.notify();
      });
    });
  }

  async *frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame> {
    const abort = () => this.notify();
    signal?.addEventListener('abort', abort);
    this.worker.postMessage({ type: 'draw', mouths, total } satisfies ToFrameWorker);
    try {
      for (let expected = 0; ; ) {
        signal?.throwIfAborted();
        const message = this.inbox.shift();
        if (!message) {
          if (this.failure) throw this.failure;
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (message.type === 'error') throw new Error(`drawing frame ${expected} failed: ${message.message}`);
        if (message.type === 'done') return;
        if (message.index !== expected) throw new Error(`the frame worker sent frame ${message.index}, expected ${expected}`);
        expected++;
        yield this.frame(message.slot);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.worker.removeAllListeners('exit');
    this.worker.on('error', () => undefined);
    await this.worker.terminate();
  }

  private frame(slot: number): DrawnFrame {
    let released = false;
    return {
      pixels: new Uint8Array(this.ring, slot * this.frameBytes, this.frameBytes),
      release: () => {
        if (released || this.closed) return;
        released = true;
        this.worker.postMessage({ type: 'release', slot } satisfies ToFrameWorker);
      },
    };
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/**
 * The worker's module: the compiled `.js` next to this file; from the TypeScript sources (tests,
 * examples run with tsx), a bootstrap that registers tsx in the worker, which does not inherit the
 * parent's `--import` loaders on Node 20, and then imports the `.ts` module.
 */
function workerEntry(): URL | string {
  const js = new URL('./frame-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return js;
  const ts = new URL('./frame-worker.ts', import.meta.url).href;
  return `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(ts)}); });`;
}
