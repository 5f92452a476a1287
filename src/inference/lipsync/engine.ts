import type { EngineContext, LipSyncEngine, LipSyncInput } from '../engines.js';
import type { MediaBinaries } from '../media/binaries.js';
import { openVideoEncoder, resolveEncoderBinaries, type EncoderBinaries, type VideoEncoderSettings } from '../media/encode-video.js';
import { FrameRenderer } from '../render/frame-renderer.js';
import { RESTING_MOUTH, type MouthTrackAnalyzer } from './mouth.js';

/** Options of {@link CanvasLipSyncEngine}. */
export interface CanvasLipSyncEngineOptions {
  /** H.264/AAC settings (preset, crf, audio bitrate, threads). */
  encoder?: VideoEncoderSettings;
  /** ffmpeg location: resolved binaries, or options for `resolveMediaBinaries` (default: found automatically). */
  binaries?: EncoderBinaries;
  /** Least time between two progress reports in milliseconds (default 250); the first and last are always sent. */
  progressIntervalMs?: number;
}

/**
 * The built-in lip-sync engine: a {@link MouthTrackAnalyzer} turns the speech into one mouth shape
 * per frame, then each frame is drawn on the canvas and piped straight into ffmpeg with the audio.
 * Memory stays flat whatever the audio length: only the (small) mouth track is held, a few frames
 * at most wait in the pipe to ffmpeg (the next one is drawn while ffmpeg encodes them), and ffmpeg's
 * stdin backpressure paces the drawing.
 */
export class CanvasLipSyncEngine implements LipSyncEngine {
  private binaries?: Promise<MediaBinaries>;

  constructor(
    private readonly analyzer: MouthTrackAnalyzer,
    private readonly options: CanvasLipSyncEngineOptions = {},
  ) {}

  async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    const { avatar } = input;
    const { signal } = context;
    signal.throwIfAborted();
    const binaries = await (this.binaries ??= resolveEncoderBinaries(this.options.binaries));
    const analysis = this.analyzer.analyze(input.audioPath, avatar.fps, signal);
    // Awaited below; this only keeps a failure that comes first from counting as unhandled.
    analysis.catch(() => undefined);
    // Set the renderer up (background, cached layers) while the analyzer's ffmpeg decodes the audio.
    let renderer: FrameRenderer;
    try {
      renderer = await FrameRenderer.create(avatar, { backgroundPath: input.backgroundPath });
    } catch (error) {
      await analysis.catch(() => undefined);
      throw error;
    }
    const track = await analysis;
    signal.throwIfAborted();
    // The analyzer decoded the audio, so its frame count is the exact one; fall back on the probe.
    const total = track.length > 0 ? track.length : Math.max(1, Math.ceil(input.durationSec * avatar.fps));
    const report = throttledProgress(context, total, this.options.progressIntervalMs ?? 250);
    report(0, true);
    const encoder = openVideoEncoder(
      {
        ...this.options.encoder,
        width: avatar.width,
        height: avatar.height,
        fps: avatar.fps,
        audioPath: input.audioPath,
        outputPath: input.outputPath,
        signal,
      },
      binaries,
    );
    try {
      for (let i = 0; i < total; i++) {
        signal.throwIfAborted();
        await encoder.write(renderer.render(i, track[i] ?? RESTING_MOUTH));
        report(i + 1, false);
      }
      await encoder.finish();
    } catch (error) {
      await encoder.abort();
      signal.throwIfAborted();
      throw error;
    }
    report(total, true);
  }
}

/** A progress reporter that forwards at most one report per `intervalMs` unless forced. */
function throttledProgress(context: EngineContext, total: number, intervalMs: number): (done: number, force: boolean) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (done, force) => {
    const now = Date.now();
    if (!force && now - last < intervalMs) return;
    last = now;
    context.onProgress({ done, total, unit: 'frames' });
  };
}
