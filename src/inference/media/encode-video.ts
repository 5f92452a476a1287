import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { resolveMediaBinaries, type MediaBinaries, type ResolveMediaBinariesOptions } from './binaries.js';
import { decodedDurationTrim } from './duration-cap.js';
import { spawnStdinProcess, type MediaSpawner, type StdinProcess } from './media-spawner.js';
import { untrustedFileInput } from './process.js';
import { rawFrameBytes, type RawVideoFormat } from './raw-video.js';

/** x264 presets, fastest first. */
export type X264Preset = 'ultrafast' | 'superfast' | 'veryfast' | 'faster' | 'fast' | 'medium' | 'slow';

/** Quality and speed settings of the H.264 encoder. */
export interface VideoEncoderSettings {
  /** x264 preset (default `veryfast`: good quality for flat cartoon frames, cheap on two cores). */
  preset?: X264Preset;
  /** Constant rate factor, 0 best to 51 worst (default 23). */
  crf?: number;
  /** AAC bitrate in kbit/s (default 128). */
  audioBitrateKbps?: number;
  /**
   * ffmpeg's AAC coding method (default `twoloop`, ffmpeg's own default). `fast` spends about 60 % less CPU on the
   * sound (0.18 against 0.42 s for 20 s of speech) and made whole 512×512 lip-sync jobs ~12 % faster on 2 cores (1 093
   * against 1 238 ms for 20 s; the speech's waveform came back closer to the input, 40.9 against 31.9 dB SNR); see
   * docs/performance.md.
   */
  aacCoder?: 'twoloop' | 'fast';
  /**
   * x264 threads (default: the number of CPU cores). x264's own default, 1.5 threads per core plus
   * lookahead, leaves no core for drawing the frames: on 2 cores a whole lip-sync job ran 13 % faster
   * with 2 threads than with x264's default, while encoding a static image took the same time.
   */
  threads?: number;
  /**
   * x264's sub-pixel motion estimation and mode decision level, 0 to 11 (default 1; the `veryfast`
   * preset's own is 2). The avatar's parts move by whole pixels, so finer sub-pixel search finds
   * little: on a 60 s lip-sync video, level 1 took ~30 % less of x264's time than level 2 for a
   * 7 % larger file and 0.1 dB less SSIM.
   */
  subme?: number;
}

/** How many frames {@link VideoEncoder.write} lets queue up for ffmpeg before it waits (default). */
export const DEFAULT_MAX_QUEUED_FRAMES = 3;

/** Options of {@link openVideoEncoder} and {@link encodeVideo}. */
export interface VideoEncodeOptions extends VideoEncoderSettings {
  /** Frame size in pixels (even sides for `yuv420p`). */
  width: number;
  height: number;
  /**
   * What each frame written is (default `rgba`: `width × height × 4` bytes). With `yuv420p` (BT.601 limited
   * range, as ffmpeg converts RGB by default) ffmpeg converts nothing: at 1920×1080 its conversion from RGBA
   * costs about as much CPU as drawing the frame.
   */
  pixelFormat?: RawVideoFormat;
  fps: number;
  /** Where to write the mp4; replaced if it exists, removed again on failure. */
  outputPath: string;
  /**
   * Audio to mux as AAC (any format ffmpeg reads; treated as untrusted input). Without it the mp4
   * has no audio stream. Write `ceil(audioDuration × fps)` frames so that the video ends within
   * one frame of the audio.
   */
  audioPath?: string;
  /**
   * Mux at most this many seconds of `audioPath` (counted in decoded samples, whatever the file's timestamps say).
   * Give the job's duration, so that the video cannot carry more sound than the input was accepted for.
   */
  audioMaxSec?: number;
  /** Kills ffmpeg; pending and later calls reject with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Frames that may wait in the pipe to ffmpeg before {@link VideoEncoder.write} waits for it to
   * catch up (default {@link DEFAULT_MAX_QUEUED_FRAMES}): the next frame is drawn while ffmpeg
   * encodes the queued ones, and memory stays bounded by this many frames.
   */
  maxQueuedFrames?: number;
}

/** Default encoder settings. */
export const DEFAULT_VIDEO_SETTINGS: Required<Omit<VideoEncoderSettings, 'threads'>> = {
  preset: 'veryfast',
  crf: 23,
  subme: 1,
  audioBitrateKbps: 128,
  aacCoder: 'twoloop',
};

/** The ffmpeg arguments for raw frames on stdin (+ optional audio) to an H.264/AAC mp4. */
export function videoEncoderArgs(options: VideoEncodeOptions): string[] {
  const { width, height, fps } = options;
  if (options.pixelFormat === 'yuv420p' && (width % 2 || height % 2)) throw new RangeError(`yuv420p frames need even sides, not ${width}×${height}`);
  const preset = options.preset ?? DEFAULT_VIDEO_SETTINGS.preset;
  const crf = options.crf ?? DEFAULT_VIDEO_SETTINGS.crf;
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    '-f', 'rawvideo', '-pix_fmt', options.pixelFormat ?? 'rgba', '-video_size', `${width}x${height}`, '-framerate', String(fps), '-i', 'pipe:0',
  ];
  if (options.audioPath) args.push(...untrustedFileInput(options.audioPath));
  args.push('-map', '0:v:0');
  if (options.audioPath) args.push('-map', '1:a:0');
  // A trim on the sample clock, not `-t` on the input: input timestamps can be squashed (more sound than they say)
  // or stretched (less). ffmpeg stops reading the audio once the trim has ended.
  const audioTrim = options.audioPath ? decodedDurationTrim(options.audioMaxSec) : undefined;
  if (audioTrim) args.push('-filter:a', audioTrim);
  // yuv420p needs even dimensions: drop the odd last row/column.
  if (width % 2 || height % 2) args.push('-vf', 'crop=trunc(iw/2)*2:trunc(ih/2)*2:0:0');
  args.push('-c:v', 'libx264', '-preset', preset, '-crf', String(crf), '-pix_fmt', 'yuv420p');
  args.push('-threads', String(options.threads ?? availableParallelism()));
  args.push('-x264-params', `subme=${options.subme ?? DEFAULT_VIDEO_SETTINGS.subme}`);
  if (options.audioPath) {
    const coder = options.aacCoder ?? DEFAULT_VIDEO_SETTINGS.aacCoder;
    if (coder !== 'twoloop' && coder !== 'fast') throw new RangeError(`aacCoder must be 'twoloop' or 'fast', not ${String(coder)}`);
    args.push('-c:a', 'aac', '-aac_coder', coder);
    args.push('-b:a', `${options.audioBitrateKbps ?? DEFAULT_VIDEO_SETTINGS.audioBitrateKbps}k`);
  }
  args.push('-movflags', '+faststart', '-f', 'mp4', '-y', `file:${options.outputPath}`);
  return args;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('The operation was aborted', 'AbortError');
}

/**
 * One running ffmpeg that turns raw frames (RGBA unless told otherwise) written to its stdin into an mp4. Create it with
 * {@link openVideoEncoder}; call {@link write} for each frame (awaiting it respects backpressure),
 * then {@link finish}. On any failure the partial output file is removed.
 */
export class VideoEncoder {
  private readonly proc: StdinProcess;
  /** ffmpeg's stdin, once it runs (see {@link stdin}). */
  private input: Writable | undefined;
  private readonly frameBytes: number;
  private readonly maxQueued: number;
  /** Frames handed to stdin that it has not yet written into the pipe. */
  private queued = 0;
  /** Wakes a {@link write} waiting for room in the queue. */
  private wake: (() => void) | undefined;
  private readonly exited: Promise<Error | undefined>;
  private framesWritten = 0;
  private done = false;

  constructor(
    private readonly options: VideoEncodeOptions,
    binaries: MediaBinaries,
    spawner?: MediaSpawner,
  ) {
    this.frameBytes = rawFrameBytes(options.pixelFormat ?? 'rgba', options.width, options.height);
    this.maxQueued = Math.max(1, options.maxQueuedFrames ?? DEFAULT_MAX_QUEUED_FRAMES);
    const args = videoEncoderArgs(options);
    const spawnOptions = { signal: options.signal, redact: options.audioPath };
    this.proc = spawner ? spawner.spawn('ffmpeg', binaries.ffmpegPath, args, spawnOptions) : spawnStdinProcess('ffmpeg', binaries.ffmpegPath, args, spawnOptions);
    this.exited = this.proc.exited.then(
      () => undefined,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
  }

  /** Frames accepted so far. */
  get frames(): number {
    return this.framesWritten;
  }

  /**
   * Queues one frame (`width × height × 4` RGBA bytes, or as the `pixelFormat` says). Resolves at once while fewer than
   * `maxQueuedFrames` frames wait to go into ffmpeg's pipe, otherwise as soon as one of them has.
   * The buffer is written later, so it must not be modified after this call (pass a fresh one),
   * or not before `onWritten` is called, once ffmpeg's pipe holds its bytes (or writing failed).
   */
  async write(frame: Uint8Array, onWritten?: () => void): Promise<void> {
    if (frame.byteLength !== this.frameBytes) {
      throw new RangeError(`frame has ${frame.byteLength} bytes, expected ${this.frameBytes}`);
    }
    if (this.done) throw new Error('encoder already finished');
    const stdin = this.input ?? (await this.stdin());
    if (!stdin || stdin.destroyed) throw await this.failure('ffmpeg is no longer accepting frames');
    this.framesWritten++;
    this.queued++;
    // Called once the frame is in the pipe (or failed: then the exit status tells the story).
    stdin.write(frame, () => {
      this.queued--;
      onWritten?.();
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    });
    if (this.queued < this.maxQueued) {
      // One turn of the event loop per frame even while ffmpeg keeps up: the finalizers of frame
      // buffers already written run there, so their memory is reused instead of piling up until
      // a garbage collection (fresh pages for every frame cost more than drawing one).
      await nextTurn();
      return;
    }
    const room = new Promise<'room'>((resolve) => {
      this.wake = () => resolve('room');
    });
    const stopped = this.exited.then(() => 'failed' as const);
    if ((await Promise.race([room, stopped])) === 'failed') {
      throw await this.failure('ffmpeg stopped before all frames were written');
    }
  }

  /** ffmpeg's stdin once it runs (at once where this process spawned it); `undefined` when it could not start. */
  private async stdin(): Promise<Writable | undefined> {
    this.input = await this.proc.stdin;
    return this.input;
  }

  /** Ends the input and waits for the mp4 to be complete. */
  async finish(): Promise<void> {
    if (this.done) throw new Error('encoder already finished');
    this.done = true;
    (this.input ?? (await this.stdin()))?.end();
    const error = await this.exited;
    if (error || this.options.signal?.aborted) {
      await rm(this.options.outputPath, { force: true });
      throw this.options.signal?.aborted ? abortReason(this.options.signal) : error;
    }
  }

  /** Kills ffmpeg and removes the partial output. Safe to call more than once. */
  async abort(): Promise<void> {
    this.done = true;
    this.proc.kill();
    await this.exited;
    await rm(this.options.outputPath, { force: true });
  }

  /** The error to report once writing failed: the abort reason, ffmpeg's exit error, or `fallback`. */
  private async failure(fallback: string): Promise<Error> {
    if (this.options.signal?.aborted) return abortReason(this.options.signal);
    if (!this.done) this.proc.kill();
    return (await this.exited) ?? new Error(fallback);
  }
}

/**
 * Starts ffmpeg for one mp4; see {@link VideoEncoder}. With `spawner`, ffmpeg is started from the spawner's small
 * process (a caller with much memory, the frame child, then pays no fork for it; see media-spawner.ts).
 */
export function openVideoEncoder(options: VideoEncodeOptions, binaries: MediaBinaries, spawner?: MediaSpawner): VideoEncoder {
  return new VideoEncoder(options, binaries, spawner);
}

/**
 * Encodes every frame of `frames` (RGBA buffers, produced lazily so memory stays flat) into
 * `options.outputPath`. With `audioPath` the audio is muxed as AAC; without it this encodes a
 * silent clip such as an avatar's idle loop. `onFrame` is called after each accepted frame.
 */
export async function encodeVideo(
  frames: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  options: VideoEncodeOptions,
  binaries: MediaBinaries,
  onFrame?: (framesDone: number) => void,
): Promise<void> {
  if (options.signal?.aborted) throw abortReason(options.signal);
  const encoder = openVideoEncoder(options, binaries);
  try {
    for await (const frame of frames) {
      await encoder.write(frame);
      onFrame?.(encoder.frames);
    }
  } catch (error) {
    await encoder.abort();
    throw options.signal?.aborted ? abortReason(options.signal) : error;
  }
  await encoder.finish();
}

/** Binaries as given to an encoder's owner: already resolved, or options to resolve them with. */
export type EncoderBinaries = MediaBinaries | ResolveMediaBinariesOptions;

/** Resolves {@link EncoderBinaries} (found automatically when absent). */
export async function resolveEncoderBinaries(given?: EncoderBinaries): Promise<MediaBinaries> {
  if (given && 'source' in given && given.ffmpegPath && given.ffprobePath) return given;
  return resolveMediaBinaries(given);
}
