/**
 * The built-in {@link FaceDetector}: MediaPipe BlazeFace + Face Mesh (shipped in `@vladmandic/human`, run on the
 * TensorFlow.js WASM backend), mapped to the 68 iBUG landmarks. Detection runs on a pooled child process that
 * loads the models once and keeps them while it lives, so the host's event loop only sends a path and receives
 * the landmarks.
 */
import { NotAnImageError, type FaceDetection } from '../../domain/avatar/photo.js';
import type { FaceDetector } from '../../domain/engines.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';

/** What the face worker is sent. */
export interface FaceDetectionTask {
  imagePath: string;
}

/** What the face worker tells while it works: `started` when it takes the task. */
export type FaceDetectionEvent = 'started';

/** Options of {@link HumanFaceDetector}. */
export interface HumanFaceDetectorOptions {
  /**
   * `'worker'` (default): decoding and the models run on a pooled child process (one, started on first use,
   * ended after 30 s idle); `'main'`: on the calling thread, blocking it for the run. Without the worker's module
   * next to this one (the package was bundled into one file), the calling thread.
   */
  thread?: 'worker' | 'main';
  /**
   * Longest time one detection may take on the worker (default {@link FACE_DETECTION_TIMEOUT_MS}), counted from
   * when the worker takes it (not while it waits for the worker); past it the detection fails and the worker is
   * ended, so a photo that hangs the models cannot hold every later upload.
   */
  timeoutMs?: number;
}

/** Default {@link HumanFaceDetectorOptions.timeoutMs}: a detection takes 0.2–2 s, a cold one on a loaded machine up to ~10 s. */
export const FACE_DETECTION_TIMEOUT_MS = 60_000;

/** The face workers of the process, shared by every detector; started on first use. */
let pool: TaskPool<FaceDetectionTask, FaceDetection, FaceDetectionEvent> | undefined;
const FACE_WORKER = childModule(import.meta.url, 'face-worker');

function facePool(): TaskPool<FaceDetectionTask, FaceDetection, FaceDetectionEvent> | undefined {
  if (!FACE_WORKER) return undefined;
  // One worker: detection is rare (once per uploaded avatar) and each worker holds the models (~2 MB of weights,
  // the WASM heap) and one decoded photo.
  return (pool ??= new TaskPool({ name: 'face detection', module: FACE_WORKER, maxWorkers: 1, maxOldGenerationSizeMb: 512 }));
}

/** Face workers started and not ended (for tests and diagnostics). */
export function faceWorkers(): number {
  return pool?.size ?? 0;
}

/** The built-in {@link FaceDetector} (see the module comment). */
export class HumanFaceDetector implements FaceDetector {
  constructor(private readonly options: HumanFaceDetectorOptions = {}) {}

  async detect(imagePath: string, signal?: AbortSignal): Promise<FaceDetection> {
    signal?.throwIfAborted();
    const workers = (this.options.thread ?? 'worker') === 'worker' ? facePool() : undefined;
    if (!workers) {
      const { detectFaces } = await import('./detect-faces.js');
      return detectFaces(imagePath, signal);
    }
    const timeoutMs = this.options.timeoutMs ?? FACE_DETECTION_TIMEOUT_MS;
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let pickUp: NodeJS.Timeout | undefined;
    const startDeadline = () => {
      clearTimeout(pickUp);
      timer ??= setTimeout(() => timeout.abort(new Error(`face detection did not finish within ${timeoutMs} ms`)), timeoutMs);
    };
    // Once a child has the task, it must report the start within timeoutMs too (one that hangs loading its modules
    // would otherwise hold the single detection slot for good).
    const posted = () => {
      pickUp = setTimeout(() => timeout.abort(new Error(`face detection did not start within ${timeoutMs} ms`)), timeoutMs);
    };
    try {
      return await workers.run({ imagePath }, { signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal, onEvent: startDeadline, onPosted: posted });
    } catch (error) {
      if (timeout.signal.aborted && !signal?.aborted) throw new Error(`face detection did not finish within ${timeoutMs} ms of starting`, { cause: error });
      // Errors lose their class crossing the thread: give callers the domain error back.
      if (error instanceof Error && error.name === 'NotAnImageError') throw new NotAnImageError(error.message);
      throw error;
    } finally {
      clearTimeout(timer);
      clearTimeout(pickUp);
    }
  }
}

/** The default {@link FaceDetector}: {@link HumanFaceDetector} in its child process. */
export function createFaceDetector(options: HumanFaceDetectorOptions = {}): FaceDetector {
  return new HumanFaceDetector(options);
}
