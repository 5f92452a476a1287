/**
 * The built-in {@link MouthTrackAnalyzer}: the input becomes 16 kHz mono float PCM (streamed; a plain PCM WAV is read
 * and resampled in TypeScript, anything else decoded by ffmpeg), log-mel features are computed on the fly, the ONNX
 * viseme model runs in 10 s chunks and the posteriors become one mouth shape per video frame (see mouth-analysis.ts).
 * All of it runs on a pooled child process by default, so the host's event loop only sends the task and receives the
 * shapes.
 */
import { fileURLToPath } from 'node:url';
import { resolveMediaBinaries, type MediaBinaries } from '../media/index.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';
import { unpackShapes, type AnalysisTask, type PackedAnalysis } from './analysis-task.js';
import type { MouthShape, MouthTrackAnalyzer } from './mouth.js';
import { analyzeMouth, type MouthAnalysis, type MouthAnalysisSettings } from './mouth-analysis.js';
import type { MouthTrackOptions } from './mouth-track.js';
import type { ChunkOptions } from './viseme-model.js';

export type { MouthAnalysis } from './mouth-analysis.js';
export { extractFeatures } from './mouth-analysis.js';

/** Where the analysis runs: a pooled child process (default) or the calling thread. */
export type AnalysisThread = 'worker' | 'main';

/** Options of {@link OnnxMouthAnalyzer}; all have defaults. */
export interface OnnxMouthAnalyzerOptions {
  /** Path or file URL of the ONNX model (default: the one shipped in models/lipsync/). */
  modelPath?: string | URL;
  /** ffmpeg/ffprobe; resolved with {@link resolveMediaBinaries} on first use when absent. */
  binaries?: MediaBinaries;
  /** How posteriors become mouth shapes (filter time constants, sharpening, closure threshold). */
  mouth?: MouthTrackOptions;
  /** How long inputs are cut into model runs (bounded memory for 5-minute inputs). */
  chunks?: ChunkOptions;
  /**
   * Where `duration` in `ceil(duration * fps)` comes from: `'probe'` (default) uses ffprobe's
   * container duration — the one the rest of the pipeline renders with — falling back to the
   * decoded length; `'decoded'` uses the number of decoded samples. They differ by a few ms for
   * lossy formats (encoder delay/padding).
   */
  duration?: 'probe' | 'decoded';
  /**
   * Read plain PCM WAV files (8 to 32-bit integer or 32/64-bit float samples, mono or stereo, any rate whose ratio to
   * 16 kHz reduces to at most 1024 phases) without ffmpeg (default `true`): the same samples as ffmpeg's decoding and
   * resampling up to float rounding, without ffmpeg's start (110–130 ms of CPU on Debian's build). `false` decodes
   * every file with ffmpeg.
   */
  readWav?: boolean;
  /**
   * `'worker'` (default): decoding, features and the model run on a pooled child process (started on first use,
   * ended after 30 s idle), never blocking the event loop; `'main'`: on the calling thread. Without the worker's
   * module next to this one (the package was bundled into one file), the calling thread.
   */
  thread?: AnalysisThread;
}

/** The analysis workers of the process, shared by every analyzer; started on first use. */
let pool: TaskPool<AnalysisTask, PackedAnalysis> | undefined;
const ANALYSIS_WORKER = childModule(import.meta.url, 'analysis-worker');

function analysisPool(): TaskPool<AnalysisTask, PackedAnalysis> | undefined {
  if (!ANALYSIS_WORKER) return undefined;
  // Each worker holds a ~1 MB model and the features of one recording (16 KB per second).
  return (pool ??= new TaskPool({ name: 'lip-sync analysis', module: ANALYSIS_WORKER, maxOldGenerationSizeMb: 512 }));
}

/** Analysis workers started and not ended (for tests and diagnostics). */
export function analysisWorkers(): number {
  return pool?.size ?? 0;
}

/** The built-in {@link MouthTrackAnalyzer}: the viseme model shipped in models/lipsync/ (see the module comment). */
export class OnnxMouthAnalyzer implements MouthTrackAnalyzer {
  private binaries?: Promise<MediaBinaries>;

  constructor(private readonly options: OnnxMouthAnalyzerOptions = {}) {
    if (options.binaries) this.binaries = Promise.resolve(options.binaries);
  }

  async analyze(audioPath: string, fps: number, signal?: AbortSignal, durationSec?: number): Promise<MouthShape[]> {
    return (await this.analyzeDetailed(audioPath, fps, signal, durationSec)).shapes;
  }

  /**
   * {@link analyze}, with the posteriors and durations behind the shapes. A positive `durationSec`
   * (already probed by the caller) is used in place of this analyzer's own probe, unless
   * {@link OnnxMouthAnalyzerOptions.duration} is `'decoded'`.
   */
  async analyzeDetailed(audioPath: string, fps: number, signal?: AbortSignal, durationSec?: number): Promise<MouthAnalysis> {
    if (!(fps > 0)) throw new RangeError(`fps must be positive, got ${fps}`);
    signal?.throwIfAborted();
    this.binaries ??= resolveMediaBinaries();
    const { modelPath, mouth, chunks, duration, readWav } = this.options;
    const settings: MouthAnalysisSettings = {
      modelPath: modelPath instanceof URL ? fileURLToPath(modelPath) : modelPath,
      binaries: await this.binaries,
      mouth,
      chunks,
      duration,
      readWav,
    };
    const workers = (this.options.thread ?? 'worker') === 'worker' ? analysisPool() : undefined;
    if (!workers) return analyzeMouth(settings, audioPath, fps, signal, durationSec);
    const { shapes, ...rest } = await workers.run({ settings, audioPath, fps, durationSec }, { signal });
    return { ...rest, shapes: unpackShapes(shapes) };
  }
}
