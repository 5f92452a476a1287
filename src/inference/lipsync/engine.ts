import type { EngineContext, LipSyncEngine, LipSyncInput } from '../../domain/engines.js';
import type { MediaBinaries } from '../media/binaries.js';
import type { RawVideoFormat } from '../media/raw-video.js';
import { resolveEncoderBinaries, type EncoderBinaries, type VideoEncoderSettings } from '../media/encode-video.js';
import { FrameSource, type RenderThread } from '../render/frame-source.js';
import type { MouthShape, MouthTrackAnalyzer } from './mouth.js';
import type { OnnxMouthAnalyzer } from './onnx-mouth-analyzer.js';
import type { VideoFace } from '../../domain/avatar/video-face.js';
import { renderVideoAvatarJob } from '../video/video-avatars.js';
import { VIDEO_AVATAR_ENCODER } from '../video/video-encoder.js';

/** Options of {@link CanvasLipSyncEngine}. */
export interface CanvasLipSyncEngineOptions {
  /** H.264/AAC settings (preset, crf, audio bitrate, threads). */
  encoder?: VideoEncoderSettings;
  /** ffmpeg location: resolved binaries, or options for `resolveMediaBinaries` (default: found automatically). */
  binaries?: EncoderBinaries;
  /** Least time between two progress reports in milliseconds (default 250); the first and last are always sent. */
  progressIntervalMs?: number;
  /**
   * Where frames are drawn (default `'worker'`): a child process starts ffmpeg, draws the frames and
   * feeds them to it while ffmpeg encodes earlier ones, so neither drawing nor the spawn nor the
   * frames' bytes block the event loop; `'main'` does all of that on the event loop's thread.
   */
  renderThread?: RenderThread;
  /**
   * What the frames go to ffmpeg as (default `yuv420p`, `rgba` for an avatar definition of odd size). With
   * `yuv420p` the drawing converts only what changed from one frame to the next and ffmpeg converts nothing;
   * `rgba` leaves the conversion (and its chroma filter) to ffmpeg, at about a third more CPU in all at 1920×1080.
   */
  frameFormat?: RawVideoFormat;
}

/**
 * The built-in lip-sync engine: a {@link MouthTrackAnalyzer} turns the speech into one mouth shape
 * per frame, then each frame is drawn on the canvas and piped straight into ffmpeg with the audio.
 * Memory stays flat whatever the audio length: only the (small) mouth track is held, a few frames
 * at most wait, drawn, for ffmpeg (a child process draws the next ones while ffmpeg encodes), and
 * ffmpeg's stdin backpressure paces the drawing. The analysis runs in a child process too (see
 * {@link OnnxMouthAnalyzer}): this thread only passes messages.
 */
export class CanvasLipSyncEngine implements LipSyncEngine {
  private binaries?: Promise<MediaBinaries>;

  /** A video avatar's video (see {@link renderVideoAvatarVideo}). */
  private async renderVideo(input: LipSyncInput, video: VideoFace, context: EngineContext): Promise<void> {
    const binaries = await (this.binaries ??= resolveEncoderBinaries(this.options.binaries));
    await renderVideoAvatarVideo(this.analyzer, { ...this.options, binaries }, input, video, context);
  }

  constructor(
    private readonly analyzer: MouthTrackAnalyzer,
    private readonly options: CanvasLipSyncEngineOptions = {},
  ) {}

  async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    if (input.video) return this.renderVideo(input, input.video, context);
    // The avatar's geometry is in design units scaled to the frame, so a definition with the job's
    // frame size draws it framed for that shape (see FrameRenderer) and the encoder takes that size.
    const avatar = input.outputSize ? { ...input.avatar, width: input.outputSize.width, height: input.outputSize.height } : input.avatar;
    const { signal } = context;
    signal.throwIfAborted();
    const binaries = await (this.binaries ??= resolveEncoderBinaries(this.options.binaries));
    signal.throwIfAborted();
    // The analysis (a child process by default) is stopped when this job fails early, e.g. on a bad background.
    const analysisStop = new AbortController();
    const stopAnalysis = (): void => analysisStop.abort(signal.reason);
    signal.addEventListener('abort', stopAnalysis, { once: true });
    // The job's probed duration sets the frame count (and spares the analyzer a second probe). Settled, never
    // rejected: its failure is rethrown where the track is needed (below).
    const analysis = settled(this.analyzer.analyze(input.audioPath, avatar.fps, analysisStop.signal, input.durationSec));
    // ffmpeg starts (and opens the audio) while the analyzer works; it waits for the first frame. The renderer
    // (a child process by default) sets itself up meanwhile too; that worker also starts ffmpeg and feeds it the
    // frames, so neither the spawn nor the frames' bytes touch this thread.
    const source = FrameSource.open({
      definition: avatar,
      backgroundPath: input.backgroundPath,
      // A photo avatar: the photo covers the frame and its face is animated instead of a drawn avatar.
      photo: input.photo,
      thread: this.options.renderThread,
      encoder: {
        options: {
          ...this.options.encoder,
          width: avatar.width,
          height: avatar.height,
          // Photo avatars draw RGBA; drawn avatars yuv420p unless asked otherwise.
          pixelFormat: input.photo ? 'rgba' : frameFormat(this.options.frameFormat, avatar),
          fps: avatar.fps,
          audioPath: input.audioPath,
          // The job's duration was measured by decoding: the mp4 never carries more sound than that.
          audioMaxSec: input.durationSec > 0 ? input.durationSec : undefined,
          outputPath: input.outputPath,
        },
        binaries,
      },
    });
    try {
      let track: MouthShape[];
      try {
        // A background that does not decode fails the job before any drawing.
        await source.ready();
        track = unwrap(await analysis);
        signal.throwIfAborted();
      } catch (error) {
        // The first failure fails the job; the analysis is stopped and waited for, its outcome is superseded.
        // (close() below stops the encoder and removes its partial file.)
        analysisStop.abort(error);
        await analysis;
        signal.throwIfAborted();
        throw error;
      } finally {
        signal.removeEventListener('abort', stopAnalysis);
      }
      // One shape per frame of the job's duration; a track with none (no duration) still gets a frame.
      const total = track.length > 0 ? track.length : Math.max(1, Math.ceil(input.durationSec * avatar.fps));
      const report = throttledProgress(context, total, this.options.progressIntervalMs ?? 250);
      report(0, true);
      await source.encode(track, total, signal, (done) => report(done, false));
      report(total, true);
    } finally {
      await source.close();
    }
  }
}

/**
 * The video avatar's path of {@link CanvasLipSyncEngine.render}: the mouth track at the clip's frame rate and, at the
 * same time, the clip's frames with their lower face redrawn, decoded, drawn and encoded in a child process
 * (renderVideoAvatarJob): that child reads the face, starts the decoder and the encoder and decodes the first frame
 * while the speech is analysed, and draws from the moment the track arrives. The first failure fails the job and
 * stops the other.
 */
async function renderVideoAvatarVideo(
  analyzer: MouthTrackAnalyzer,
  options: CanvasLipSyncEngineOptions,
  input: LipSyncInput,
  video: VideoFace,
  context: EngineContext,
): Promise<void> {
  const { signal } = context;
  signal.throwIfAborted();
  const stop = new AbortController();
  const stopBoth = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', stopBoth, { once: true });
  let report: ((done: number, force: boolean) => void) | undefined;
  let total = 0;
  const analysis = settled(
    analyzer.analyze(input.audioPath, video.fps, stop.signal, input.durationSec).then((track) => {
      total = track.length > 0 ? track.length : Math.max(1, Math.ceil(input.durationSec * video.fps));
      report = throttledProgress(context, total, options.progressIntervalMs ?? 250);
      report(0, true);
      return { mouths: track, total };
    }),
  );
  // A failed analysis stops the rendering (which waits for its track).
  void analysis.then((outcome) => (outcome.ok ? undefined : stop.abort(outcome.error)));
  const track = analysis.then(unwrap);
  // Its failure is handled above, whether or not the rendering got to wait for it.
  track.catch(() => undefined);
  try {
    await renderVideoAvatarJob({
      face: video,
      track,
      outputSize: input.outputSize,
      audioPath: input.audioPath,
      audioMaxSec: input.durationSec > 0 ? input.durationSec : undefined,
      outputPath: input.outputPath,
      encoder: { ...VIDEO_AVATAR_ENCODER, ...options.encoder },
      binaries: options.binaries,
      signal: stop.signal,
      onFrame: (done) => report?.(done, false),
      thread: options.renderThread,
    });
  } catch (error) {
    // The first failure fails the job (a failed analysis aborted `stop` with its error before the rendering
    // failed); the analysis is stopped and waited for.
    if (!stop.signal.aborted) stop.abort(error);
    await analysis;
    signal.throwIfAborted();
    throw stop.signal.reason;
  } finally {
    signal.removeEventListener('abort', stopBoth);
  }
  report?.(total, true);
}

/** The frames' format: as asked, else yuv420p, which cannot hold an odd-sized frame (then RGBA). */
function frameFormat(asked: RawVideoFormat | undefined, size: { width: number; height: number }): RawVideoFormat {
  return asked ?? (size.width % 2 === 0 && size.height % 2 === 0 ? 'yuv420p' : 'rgba');
}

/** The outcome of a promise, as a value: awaiting it never throws. */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settled<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

function unwrap<T>(outcome: Settled<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
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
