/**
 * The compute of {@link OnnxSeparationEngine}, on the thread that calls it (a child process by default). Method (see
 * training/separation/README.md):
 *
 * 1. read the input's format: a plain PCM WAV's from its header, any other file's by probing it (when the job's
 *    duration is known, ffmpeg starts meanwhile, in the input's own format); no audio stream → Error (the job ends in
 *    `error` with that message);
 * 2. decode it once, streaming, into two PCM streams (one ffmpeg): at its own rate and at 16 kHz (model rate), both
 *    with its own channel count, read as they come;
 * 3. at 16 kHz: the model's masks from the downmix's STFT magnitudes, in chunks with context;
 * 4. at the input's rate: STFT per channel, the masks mapped onto its frames and bins (above 8 kHz a per-frame gain
 *    from the model's 4–8 kHz mask), masked iSTFT per channel = speech estimate over the whole band
 *    ({@link FullBandSeparator}); `ambience = input − speech` per channel and sample, so the two stems sum back to
 *    the input (exactly in float; within 16-bit rounding in wav, up to coding loss in mp3);
 * 5. both stems written while streaming: 16-bit wav by default (mono and stereo here, see wav-writer.ts; more
 *    channels by ffmpeg), mp3 by option (ffmpeg).
 *
 * Memory is bounded (one model chunk and stream buffers) whatever the input length.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { Logger } from '../../domain/logger.js';
import type { JobProgress } from '../../domain/job.js';
import type { SeparationInput } from '../../domain/engines.js';
import { decodeAudioAs, encodeAudio, probeMedia, type MediaBinaries, type PcmFormat } from '../media/index.js';
import { PcmFrameReader } from '../media/pcm-frames.js';
import { wavLayoutAt, wavSeconds } from '../media/wav-layout.js';
import { writeWavPcm16 } from '../media/wav-writer.js';
import type { MaskModel } from './model.js';
import { SeparationModelThread } from './model-thread.js';
import { FullBandSeparator } from './fullband.js';
import { HOP, MODEL_RATE } from './stft.js';

/** The settings of {@link OnnxSeparationEngine}, resolved (plain data: they travel to a child process). */
export interface SeparationSettings {
  /** Path of the ONNX model. */
  modelPath: string;
  format: 'wav' | 'mp3';
  mp3BitrateKbps?: number;
  binaries: MediaBinaries;
  intraOpNumThreads: number;
  executionProviders?: string[];
  chunkSeconds: number;
  maxDurationSec: number;
}

/** What the separation tells its caller while it runs. */
export interface SeparationHooks {
  onProgress(progress: JobProgress): void;
  /** Called with the model once it is loaded (for the log line naming its execution providers). */
  onModel?(model: MaskModel): void;
  /** Where cleanup problems are reported (warn). */
  logger?: Pick<Logger, 'warn'>;
}

/** Separates `input` into its two stems on this thread; rejects with the reason when it cannot. */
export async function separateOnThisThread(
  settings: SeparationSettings,
  input: SeparationInput,
  signal: AbortSignal,
  hooks: SeparationHooks,
): Promise<void> {
  signal.throwIfAborted();
  const { binaries } = settings;
  const maxSec = settings.maxDurationSec;
  // A job's duration was measured by decoding (a header may lie); only a direct caller that gives none gets the probe's.
  const measured = input.durationSec > 0 ? input.durationSec : undefined;
  if (measured !== undefined) refuseLonger(measured, maxSec);
  const abort = new AbortController();
  const onAbort = (): void => abort.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const decode = (format?: PcmFormat): Decoded =>
    listened(
      decodeAudioAs(
        input.audioPath,
        [format ?? {}, { sampleRate: MODEL_RATE, channels: format?.channels }],
        { signal: abort.signal, maxDurationSec: measured },
        binaries,
      ),
    );
  // With the job's duration known (and within the limit), ffmpeg starts with the probe instead of after it, in the
  // input's own rate and channel count: the format the probe is about to confirm (else it starts again in the
  // format asked for). Each start costs a process (a fork and ffmpeg's own start-up: tens of ms).
  let decoded = measured !== undefined ? decode() : undefined;
  try {
    const format = await inputFormat(input.audioPath, binaries, signal);
    refuseLonger(measured ?? format.durationSec, maxSec);
    const { sampleRate } = format;
    let { channels } = format;
    if (settings.format === 'mp3') channels = Math.min(channels, 2); // mp3 carries at most two channels
    if (decoded && (format.stated.sampleRate !== sampleRate || format.stated.channels !== channels)) {
      destroyAll(decoded);
      decoded = undefined;
    }
    decoded ??= decode({ sampleRate, channels });
    // On a thread of its own, so that the model runs while this thread computes the next frames (model-thread.ts).
    const model = await SeparationModelThread.load(settings.modelPath, {
      intraOpNumThreads: settings.intraOpNumThreads,
      executionProviders: settings.executionProviders,
    });
    hooks.onModel?.(model);
    signal.throwIfAborted();
    await separateDecoded(settings, input, { signal, abort, hooks, model, decoded, sampleRate, channels, total: measured ?? format.durationSec });
  } catch (error) {
    if (decoded) destroyAll(decoded);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** The input's format as {@link separateOnThisThread} uses it. */
interface InputFormat {
  sampleRate: number;
  channels: number;
  durationSec: number;
  /** The rate and channel count the file states (0 when the probe gave none). */
  stated: { sampleRate: number; channels: number };
}

/**
 * The format of the input at `path`: a plain PCM WAV's from its header (no ffprobe, whose start cost ~70 ms of CPU a
 * job on a 2-core machine: 30 s jobs 1.29 against 1.36 s of CPU, in the same wall time), any other file's probed.
 * @throws Error when the input has no audio stream.
 */
async function inputFormat(path: string, binaries: MediaBinaries, signal: AbortSignal): Promise<InputFormat> {
  const wav = await wavLayoutAt(path);
  if (wav) {
    const stated = { sampleRate: wav.sampleRate, channels: wav.channels };
    return { ...stated, durationSec: wavSeconds(wav), stated };
  }
  const probe = await probeMedia(path, binaries, { signal });
  if (!probe.audio) throw new Error('the input has no audio stream: there is nothing to separate');
  const stated = { sampleRate: probe.audio.sampleRate, channels: probe.audio.channels };
  return {
    sampleRate: stated.sampleRate > 0 ? stated.sampleRate : 44100,
    channels: stated.channels > 0 ? stated.channels : 1,
    durationSec: probe.durationSec,
    stated,
  };
}

/** The two PCM streams of one decode: at the input's rate, and at 16 kHz for the model. */
type Decoded = [native: Readable, low: Readable];

/** The streams, each with an error listener: one that fails before it is read must not be an uncaught error. */
function listened(streams: Readable[]): Decoded {
  for (const stream of streams) stream.on('error', () => undefined);
  return streams as Decoded;
}

function destroyAll(streams: readonly Readable[]): void {
  for (const stream of streams) stream.destroy();
}

function refuseLonger(durationSec: number, maxSec: number): void {
  if (durationSec > maxSec) {
    throw new Error(`the input lasts ${durationSec.toFixed(1)} s, longer than the ${maxSec} s separation limit`);
  }
}

/** What {@link separateDecoded} works with, once the input's format is known and its decode started. */
interface DecodedRun {
  signal: AbortSignal;
  /** Aborted with the first failure (or the caller's abort): stops ffmpeg and the encoders. */
  abort: AbortController;
  hooks: SeparationHooks;
  model: MaskModel;
  decoded: Decoded;
  sampleRate: number;
  channels: number;
  /** The input's duration in seconds, for progress. */
  total: number;
}

/** Steps 3 to 5 of the method: masks, full-band stems and their encodes, from the decoded streams. */
async function separateDecoded(settings: SeparationSettings, input: SeparationInput, run: DecodedRun): Promise<void> {
  const { signal, abort, hooks, model, sampleRate, channels, total } = run;
  const [native, low] = run.decoded;
  const { binaries } = settings;
  const inner = abort.signal;
  const fail = (error: unknown): never => {
    if (!inner.aborted) abort.abort(error);
    throw error;
  };

  // A mono or stereo WAV is written here (wav-writer.ts: the samples ffmpeg would write, without two ffmpeg processes
  // a job); mp3, and WAV of more channels, through ffmpeg.
  const encode = (pcm: Readable, outputPath: string): Promise<void> =>
    settings.format === 'wav' && channels <= 2
      ? writeWavPcm16(pcm, { sampleRate, channels, outputPath, signal: inner, logger: hooks.logger })
      : encodeAudio(
          pcm,
          { sampleRate, channels, format: settings.format, outputPath, bitrateKbps: settings.mp3BitrateKbps, signal: inner, logger: hooks.logger },
          binaries,
        );
  const speechOut = new PassThrough();
  const ambienceOut = new PassThrough();
  const separator = new FullBandSeparator(model, channels, sampleRate, {
    chunkFrames: Math.round((settings.chunkSeconds * MODEL_RATE) / HOP),
  });
  // ffmpeg writes both streams in step, so both are read as they come: the 16 kHz copy feeds the model (which runs
  // on each chunk it completes), the native frames wait in the separator for their masks. Neither side can run
  // ahead of the other by more than a pipe's buffer, so memory stays at about one model chunk.
  const lowDone = (async (): Promise<void> => {
    const reader = new PcmFrameReader(channels);
    for await (const chunk of low as AsyncIterable<Buffer>) {
      inner.throwIfAborted();
      await separator.pushLow(reader.read(chunk));
    }
    await separator.finishLow();
  })();
  let done = 0;
  let reported = 0;
  let reportedAt = Number.NEGATIVE_INFINITY;
  const emit = async (): Promise<void> => {
    const { speech, ambience } = separator.take();
    if (speech.length === 0) return;
    await Promise.all([write(speechOut, speech), write(ambienceOut, ambience)]);
    done += speech.length / channels / sampleRate;
    // Each second of audio done, at most every PROGRESS_INTERVAL_MS: at 100× real time one a second of audio
    // would be 100 messages a second to the host.
    const now = performance.now();
    if (done - reported >= 1 && now - reportedAt >= PROGRESS_INTERVAL_MS) {
      reported = done;
      reportedAt = now;
      hooks.onProgress({ done: Math.min(Math.round(done * 10) / 10, total || done), total: total || done, unit: 'seconds' });
    }
  };
  const pump = async (): Promise<void> => {
    const reader = new PcmFrameReader(channels);
    for await (const chunk of native as AsyncIterable<Buffer>) {
      inner.throwIfAborted();
      separator.pushNative(reader.read(chunk));
      await emit();
    }
    separator.finishNative();
    await lowDone;
    await emit();
    speechOut.end();
    ambienceOut.end();
    hooks.onProgress({ done: total || done, total: total || done, unit: 'seconds' });
  };

  try {
    await Promise.all([
      lowDone.catch(fail),
      pump().catch(fail),
      encode(speechOut, input.speechPath).catch(fail),
      encode(ambienceOut, input.ambiencePath).catch(fail),
    ]);
  } catch (error) {
    for (const s of [low, native, speechOut, ambienceOut]) s.destroy();
    throw signal.aborted ? (signal.reason ?? error) : inner.reason instanceof Error ? inner.reason : error;
  }
}

/** Least time between two progress reports (the job runner writes progress at most every 2 s). */
const PROGRESS_INTERVAL_MS = 250;

/** Writes float samples, resolving once the stream accepts more (backpressure). */
function write(stream: Writable, samples: Float32Array): Promise<void> {
  const buf = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  if (stream.write(buf)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', onError);
    };
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('output stream closed early'));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    stream.once('drain', onDrain);
    stream.once('close', onClose);
    stream.once('error', onError);
  });
}
