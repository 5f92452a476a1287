import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { EngineCrashError } from '../../domain/engine-crash.js';
import { RESTING_MOUTH, type MouthShape } from '../lipsync/mouth.js';
import type { PhotoFace } from '../../domain/avatar/photo.js';
import type { FrameDrawer } from './frame-drawer.js';
import type { FrameEncoderSetup, FromFrameWorker, ToFrameWorker } from './frame-worker-protocol.js';
import { openVideoEncoder, type VideoEncoder } from '../media/encode-video.js';
import { rawFrameBytes, type RawVideoFormat } from '../media/raw-video.js';
import { describeExit, holdChild, killChild, killGroup, sendToChild, startChild, type EngineChild } from '../workers/child.js';
import { childModule } from '../workers/child-module.js';
import { reviveError } from '../workers/task-protocol.js';

export type { FrameEncoderSetup } from './frame-worker-protocol.js';

/** One drawn frame: RGBA bytes (or the encoder's `pixelFormat`, see {@link FrameSource.frames}), valid until {@link release} is called. */
export interface DrawnFrame {
  pixels: Uint8Array;
  /** Call once the pixels have been consumed (written into ffmpeg's pipe): the memory is reused. */
  release(): void;
}

/** Where frames are drawn: in a pooled child process (`'worker'`, the default) or on the calling thread. */
export type RenderThread = 'worker' | 'main';

/** What a {@link FrameSource} draws with. */
export interface FrameSourceOptions {
  definition: AvatarDefinition;
  /** An image drawn to cover the frame behind the avatar. */
  backgroundPath?: string;
  /**
   * A photo avatar's portrait: the frames are the photo, scaled to cover the frame, with the face
   * animated (see `PhotoFrameRenderer`); `backgroundPath` is then not used.
   */
  photo?: PhotoFace;
  /** Make a photo avatar's idle motion a seamless loop of this many frames (its idle clip). */
  loopFrames?: number;
  /** `'worker'` (default) or `'main'`; see {@link FrameSource}. */
  thread?: RenderThread;
  /** Frames a child may have drawn ahead of the consumer (default {@link DEFAULT_FRAME_SLOTS}, at least 2). */
  slots?: number;
  /**
   * The mp4 to write the frames into with {@link FrameSource.encode} (instead of taking them from
   * {@link FrameSource.frames}). ffmpeg starts at once; with a child process the child starts it and
   * writes every frame into it, so neither the spawn nor the frames' bytes touch the caller's process.
   */
  encoder?: FrameEncoderSetup;
}

/** How long a child told to stop its video may take to answer before it is killed. */
const STOP_GRACE_MS = 1_000;

/** Default of {@link FrameSourceOptions.slots}. */
export const DEFAULT_FRAME_SLOTS = 6;

/**
 * The frames of one lip-sync video. Opening one starts setting the renderer up (background, cached
 * layers), so that this overlaps with the audio analysis; {@link frames} then yields the frames in
 * order. With a child process (`'worker'`), the child draws (native canvas code, image decoding)
 * and, with an encoder, writes the frames into ffmpeg itself: drawing never blocks the host's event
 * loop, a crash in native code ends the child and fails this video only, and memory stays bounded
 * by `slots` frames. {@link frames} copies each frame across the channel (meant for a few frames:
 * previews, tests). A child that finished a video waits {@link FRAME_WORKER_IDLE_MS} for the next
 * one. `'main'` draws on the calling thread, one frame at a time. Always {@link close} it (also
 * after {@link frames} has run).
 */
export abstract class FrameSource {
  static open(options: FrameSourceOptions): FrameSource {
    // Without the worker's module next to this one (a bundler inlined this file), draw on this thread.
    const useWorker = (options.thread ?? 'worker') === 'worker' && WORKER_ENTRY !== undefined;
    return useWorker ? new WorkerFrameSource(options) : new InlineFrameSource(options);
  }

  /**
   * Resolves once the renderer is set up (background decoded, layers drawn); rejects with the reason
   * when it cannot be, e.g. a background image that does not decode.
   */
  abstract ready(): Promise<void>;

  /**
   * Frames `0 … total − 1`, frame `i` with `mouths[i]` (the resting mouth past its end), in the encoder's
   * `pixelFormat` when opened with one, else RGBA. Call once.
   */
  abstract frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame>;

  /**
   * Draws frames `0 … total − 1` (as {@link frames}) into the encoder given at {@link open} and waits for
   * the mp4 to be complete; `onFrame(n)` is told each time `n` frames are in. Rejects on any failure, or with
   * the signal's reason on abort; the partial file is removed then. Call once, instead of {@link frames}.
   */
  abstract encode(mouths: readonly MouthShape[], total: number, signal?: AbortSignal, onFrame?: (done: number) => void): Promise<void>;

  /**
   * Stops drawing (and encoding: a video not complete is aborted, its partial file removed) and frees the
   * renderer (terminates the worker). Safe to call more than once.
   */
  abstract close(): Promise<void>;
}

/** Draws on the calling thread; the drawing modules (canvas: native code) load only when one is opened. */
class InlineFrameSource extends FrameSource {
  private readonly drawing = import('./frame-drawer.js');
  private readonly renderer: Promise<FrameDrawer>;
  private readonly encoder?: VideoEncoder;
  private readonly format: RawVideoFormat;
  /** Stops the encoder: aborted with the job's reason, or by close() before the video is complete. */
  private readonly stop = new AbortController();
  private encoded = false;

  constructor(options: FrameSourceOptions) {
    super();
    this.renderer = this.drawing.then(({ createFrameDrawer }) => createFrameDrawer(options));
    // Marked handled here only: ready() and frames() await it, so the caller gets the error from them.
    this.renderer.catch(() => undefined);
    this.format = options.encoder?.options.pixelFormat ?? 'rgba';
    if (options.encoder) this.encoder = openVideoEncoder({ ...options.encoder.options, signal: this.stop.signal }, options.encoder.binaries);
  }

  async encode(mouths: readonly MouthShape[], total: number, signal?: AbortSignal, onFrame?: (done: number) => void): Promise<void> {
    const encoder = this.encoder;
    if (!encoder) throw new Error('this FrameSource was opened without an encoder');
    const onAbort = () => this.stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      let done = 0;
      for await (const frame of this.frames(mouths, total, signal)) {
        await encoder.write(frame.pixels, frame.release);
        onFrame?.(++done);
      }
      await encoder.finish();
      this.encoded = true;
    } catch (error) {
      await encoder.abort();
      signal?.throwIfAborted();
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async ready(): Promise<void> {
    await this.renderer;
  }

  async *frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame> {
    const renderer = await this.renderer;
    const { drawFrameInto } = await this.drawing;
    // Frame buffers are reused once released; only as many exist as frames wait for the encoder.
    const free: Uint8Array[] = [];
    for (let index = 0; index < total; index++) {
      signal?.throwIfAborted();
      const pixels = free.pop() ?? new Uint8Array(rawFrameBytes(this.format, renderer.width, renderer.height));
      drawFrameInto(renderer, this.format, index, mouths[index] ?? RESTING_MOUTH, pixels);
      let released = false;
      yield {
        pixels,
        release: () => {
          if (released) return;
          released = true;
          free.push(pixels);
        },
      };
    }
  }

  async close(): Promise<void> {
    if (this.encoder && !this.encoded) await this.encoder.abort();
    (await this.renderer.catch(() => undefined))?.close?.();
  }
}

class WorkerFrameSource extends FrameSource {
  private readonly worker: PooledWorker;
  private readonly job = ++lastJob;
  /** What the worker said about the frames (its set-up is reported through {@link ready}). */
  private readonly inbox: Exclude<FromFrameWorker, { type: 'ready' }>[] = [];
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly setUp: Promise<void>;
  private settleSetUp!: (error?: Error) => void;
  /** Whether the worker finished this video and may serve another. */
  private finished = false;
  private closed = false;
  /** Whether the worker writes the frames into its own encoder ({@link FrameSourceOptions.encoder}). */
  private readonly encoding: boolean;
  private stopSent = false;
  private readonly onMessage = (message: FromFrameWorker) => {
    if (message.type === 'fatal') {
      this.failure ??= new Error(`the frame drawing process failed: ${message.error.message}`);
      return; // its exit follows
    }
    if (message.job !== this.job) return;
    if (message.type === 'ready') return this.settleSetUp();
    if (message.type === 'error') this.settleSetUp(new Error(message.message));
    this.inbox.push(message);
    this.notify();
  };
  private readonly onError = (error: Error) => {
    this.failure ??= error;
    this.settleSetUp(error);
    this.notify();
  };
  private readonly onExit = (code: number | null, signal: NodeJS.Signals | null) => {
    // Messages sent before the exit may still be queued; give them one more turn.
    setImmediate(() => {
      this.failure ??= new EngineCrashError(`${describeExit('frame drawing', code, signal)} before drawing every frame`);
      this.settleSetUp(this.failure);
      this.notify();
    });
  };

  constructor(options: FrameSourceOptions) {
    super();
    this.setUp = new Promise<void>((resolve, reject) => {
      this.settleSetUp = (error) => (error ? reject(error) : resolve());
    });
    // Marked handled here only: ready() and frames() await it, so the caller gets the error from them.
    this.setUp.catch(() => undefined);
    const slots = Math.max(2, options.slots ?? DEFAULT_FRAME_SLOTS);
    this.encoding = options.encoder !== undefined;
    this.worker = acquireWorker();
    this.worker.child.on('message', this.onMessage);
    this.worker.child.on('error', this.onError);
    this.worker.child.on('exit', this.onExit);
    this.post({
      type: 'prepare',
      job: this.job,
      definition: options.definition,
      backgroundPath: options.backgroundPath,
      photo: options.photo,
      loopFrames: options.loopFrames,
      slots,
      encoder: options.encoder,
    });
  }

  ready(): Promise<void> {
    return this.setUp;
  }

  async *frames(mouths: readonly MouthShape[], total: number, signal?: AbortSignal): AsyncGenerator<DrawnFrame> {
    const abort = () => this.notify();
    signal?.addEventListener('abort', abort);
    this.post({ type: 'draw', job: this.job, mouths, total });
    try {
      for (let expected = 0; ; ) {
        signal?.throwIfAborted();
        const message = this.inbox.shift();
        if (!message) {
          if (this.failure) throw this.failure;
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (message.type === 'error') {
          this.finished = true; // the worker is waiting for its next video
          throw new Error(`drawing frame ${expected} failed: ${message.message}`);
        }
        if (message.type === 'done') {
          this.finished = expected === total;
          return;
        }
        if (message.type !== 'frame') throw new Error('the frame child is encoding: use encode(), not frames()');
        if (message.index !== expected) throw new Error(`the frame child sent frame ${message.index}, expected ${expected}`);
        expected++;
        yield this.frame(message.slot, message.pixels);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  async encode(mouths: readonly MouthShape[], total: number, signal?: AbortSignal, onFrame?: (done: number) => void): Promise<void> {
    if (!this.encoding) throw new Error('this FrameSource was opened without an encoder');
    const abort = () => this.notify();
    signal?.addEventListener('abort', abort);
    this.post({ type: 'draw', job: this.job, mouths, total });
    try {
      for (;;) {
        // On abort the worker kills ffmpeg and removes the partial file; its answer is waited for (close()
        // terminates a worker that does not answer in time).
        if (signal?.aborted) {
          await this.stopVideo();
          throw signal.reason;
        }
        const message = this.inbox.shift();
        if (!message) {
          if (this.failure) throw this.failure;
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (message.type === 'encoded') onFrame?.(message.index + 1);
        else if (message.type === 'done' || message.type === 'error') {
          this.finished = true; // the worker is waiting for its next video
          signal?.throwIfAborted();
          if (message.type === 'error') throw reviveError(message.error);
          return;
        }
      }
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }

  /**
   * Tells the worker to stop this video and waits (at most {@link STOP_GRACE_MS}) for it to answer; true when it
   * did, so it can serve another video.
   */
  private async stopVideo(): Promise<boolean> {
    if (!this.stopSent) {
      this.stopSent = true;
      this.post({ type: 'stop', job: this.job });
    }
    const deadline = Date.now() + STOP_GRACE_MS;
    while (!this.finished && !this.failure) {
      const message = this.inbox.shift();
      if (message?.type === 'done' || message?.type === 'error') {
        this.finished = true;
        break;
      }
      if (message) continue;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.finished && !this.failure;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // A video not complete is stopped first, so that the worker's ffmpeg is killed and its partial file removed.
    if (this.encoding && !this.finished && !this.failure) await this.stopVideo();
    this.closed = true;
    const { child } = this.worker;
    child.off('message', this.onMessage);
    child.off('error', this.onError);
    child.off('exit', this.onExit);
    // A child that finished its video serves the next one; one stopped half-way is ended.
    if (this.finished && !this.failure) releaseWorker(this.worker);
    else await endWorker(this.worker);
  }

  private frame(slot: number, pixels: Uint8Array): DrawnFrame {
    let released = false;
    return {
      pixels,
      release: () => {
        if (released || this.closed) return;
        released = true;
        this.post({ type: 'release', job: this.job, slot });
      },
    };
  }

  private post(message: ToFrameWorker): void {
    sendToChild(this.worker.child, message);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Numbers the videos, so that a pooled worker's messages reach the video they are about. */
let lastJob = 0;

/** A frame child, and the timer that ends it after a while without work. */
interface PooledWorker {
  child: EngineChild;
  idleTimer?: NodeJS.Timeout;
}

/**
 * How long a frame child that finished a video waits for the next one before it ends. Starting
 * one loads its modules (a few hundred milliseconds); an idle one holds some memory and no CPU.
 */
export const FRAME_WORKER_IDLE_MS = 30_000;

/**
 * The frame child's allocator settings. The canvas allocates through mimalloc, which by default gives freed memory
 * back to the system after 10 ms; the mouth's pixels, read back every frame into a new buffer freed at the next
 * garbage collection, then landed in fresh pages (huge pages where the kernel gives them) again and again. With a
 * second's delay the next buffers reuse them: a 20 s 1280×720 video's faults in the frame child fell from 2 400–4 300
 * to 40–1 800, its CPU ~10 % (see docs/performance.md). A host that sets the variable itself keeps its own value.
 */
const FRAME_CHILD_ENV = { MIMALLOC_PURGE_DELAY: '1000' };

/** Idle frame children, most recently used last. They never keep the host alive. */
const idleWorkers: PooledWorker[] = [];

function acquireWorker(): PooledWorker {
  const pooled = idleWorkers.pop();
  if (pooled) {
    clearTimeout(pooled.idleTimer);
    holdChild(pooled.child, true);
    return pooled;
  }
  const entry = WORKER_ENTRY;
  if (entry === undefined) throw new Error('the frame child module is missing');
  const child = startChild(entry, { name: 'frame drawing', maxOldGenerationSizeMb: 512, defaultEnv: FRAME_CHILD_ENV });
  const worker: PooledWorker = { child };
  // While a child draws a video, the video's FrameSource listens too and fails that video with the error (its
  // frames() throws it, and the job ends in `error` with it). This listener only keeps an error of an idle
  // child, which no video waits for, from being thrown at the host: the exit listener below drops it from the
  // pool; the next video starts a fresh one.
  child.on('error', () => undefined);
  child.on('exit', () => {
    killGroup(child); // the ffmpeg of a video it was drawing, when it crashed
    const at = idleWorkers.indexOf(worker);
    if (at >= 0) idleWorkers.splice(at, 1);
  });
  return worker;
}

function releaseWorker(worker: PooledWorker): void {
  holdChild(worker.child, false);
  worker.idleTimer = setTimeout(() => void endWorker(worker), FRAME_WORKER_IDLE_MS);
  worker.idleTimer.unref();
  idleWorkers.push(worker);
}

async function endWorker(worker: PooledWorker): Promise<void> {
  clearTimeout(worker.idleTimer);
  const at = idleWorkers.indexOf(worker);
  if (at >= 0) idleWorkers.splice(at, 1);
  await killChild(worker.child);
}

/** Frame children waiting for a video (for tests and diagnostics). */
export function idleFrameWorkers(): number {
  return idleWorkers.length;
}

/** The child's module (see {@link childModule}); none when the package was bundled into one file. */
const WORKER_ENTRY = childModule(import.meta.url, 'frame-worker');
