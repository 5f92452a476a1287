/**
 * The compute of {@link OnnxSeparationEngine}, on the thread that calls it (a worker thread by default). Method (see
 * training/separation/README.md):
 *
 * 1. probe the input; no audio stream → Error (the job ends in `error` with that message);
 * 2. decode it twice, streaming: at 16 kHz (model rate) and at its own rate, both with its own channel count;
 * 3. at 16 kHz: STFT per channel, mask from the downmix's magnitudes, masked iSTFT per channel = speech estimate
 *    (band-limited to 8 kHz), in chunks with overlap-add ({@link StreamingSeparator});
 * 4. speech estimate → ffmpeg resampler → input rate; `ambience = input − speech` per channel and sample, so the
 *    two stems sum back to the input (exactly in float; within 16-bit rounding in wav, up to coding loss in mp3),
 *    and everything above 8 kHz stays in the ambience: both outputs are full-band at the input's rate;
 * 5. both stems encoded by ffmpeg while streaming (wav 16-bit by default, mp3 by option).
 *
 * Memory is bounded (one model chunk and stream buffers) whatever the input length.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { Logger } from '../../domain/logger.js';
import type { JobProgress } from '../../domain/job.js';
import type { SeparationInput } from '../../domain/engines.js';
import { decodeAudio, encodeAudio, probeMedia, spawnMedia, type MediaBinaries } from '../media/index.js';
import { SeparationModel } from './model.js';
import { StreamingSeparator, concatSamples } from './separator.js';
import { MODEL_RATE } from './stft.js';

/** The settings of {@link OnnxSeparationEngine}, resolved (plain data: they travel to a worker thread). */
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
  onModel?(model: SeparationModel): void;
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
  const probe = await probeMedia(input.audioPath, binaries, { signal });
  if (!probe.audio) throw new Error('the input has no audio stream: there is nothing to separate');
  const maxSec = settings.maxDurationSec;
  // A job's duration was measured by decoding (a header may lie); only a direct caller that gives none gets the probe's.
  const measured = input.durationSec > 0 ? input.durationSec : undefined;
  const durationSec = measured ?? probe.durationSec;
  if (durationSec > maxSec) {
    throw new Error(`the input lasts ${durationSec.toFixed(1)} s, longer than the ${maxSec} s separation limit`);
  }
  const sampleRate = probe.audio.sampleRate > 0 ? probe.audio.sampleRate : 44100;
  let channels = probe.audio.channels > 0 ? probe.audio.channels : 1;
  if (settings.format === 'mp3') channels = Math.min(channels, 2); // mp3 carries at most two channels
  const model = await SeparationModel.load(settings.modelPath, {
    intraOpNumThreads: settings.intraOpNumThreads,
    executionProviders: settings.executionProviders,
  });
  hooks.onModel?.(model);
  signal.throwIfAborted();

  const abort = new AbortController();
  const onAbort = (): void => abort.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const inner = abort.signal;
  const fail = (error: unknown): never => {
    if (!inner.aborted) abort.abort(error);
    throw error;
  };

  const encode = (pcm: Readable, outputPath: string): Promise<void> =>
    encodeAudio(
      pcm,
      { sampleRate, channels, format: settings.format, outputPath, bitrateKbps: settings.mp3BitrateKbps, signal: inner, logger: hooks.logger },
      binaries,
    );
  const speechOut = new PassThrough();
  const ambienceOut = new PassThrough();
  const low = decodeAudio(input.audioPath, { sampleRate: MODEL_RATE, channels, signal: inner, maxDurationSec: measured }, binaries);
  const native = decodeAudio(input.audioPath, { sampleRate, channels, signal: inner, maxDurationSec: measured }, binaries);
  // The speech estimate travels 16 kHz → input rate through ffmpeg's resampler (or straight through at 16 kHz).
  let speechSink: Writable;
  let speechNative: Readable;
  let resampled: Promise<void> = Promise.resolve();
  if (sampleRate === MODEL_RATE) {
    const through = new PassThrough();
    speechSink = through;
    speechNative = through;
  } else {
    const f32 = (rate: number): string[] => ['-f', 'f32le', '-ar', String(rate), '-ac', String(channels)];
    const proc = spawnMedia(
      'ffmpeg',
      binaries.ffmpegPath,
      ['-nostdin', '-hide_banner', '-loglevel', 'error', ...f32(MODEL_RATE), '-i', 'pipe:0', ...f32(sampleRate), 'pipe:1'],
      { stdin: true, signal: inner },
    );
    const stdin = proc.child.stdin;
    const stdout = proc.child.stdout;
    if (!stdin || !stdout) throw new Error('ffmpeg resampler has no stdio');
    stdin.on('error', () => undefined); // EPIPE when ffmpeg dies; its exit status reports the error
    speechSink = stdin;
    speechNative = stdout;
    resampled = proc.exited;
  }
  const separator = new StreamingSeparator(model, channels, {
    chunkFrames: Math.round((settings.chunkSeconds * MODEL_RATE) / 256),
  });

  const produce = async (): Promise<void> => {
    const reader = new FrameReader(channels);
    for await (const chunk of low as AsyncIterable<Buffer>) {
      inner.throwIfAborted();
      const speech = await separator.push(reader.read(chunk));
      if (speech.length > 0) await write(speechSink, speech);
    }
    const rest = await separator.finish();
    if (rest.length > 0) await write(speechSink, rest);
    speechSink.end();
  };

  const total = input.durationSec > 0 ? input.durationSec : probe.durationSec;
  const combine = async (): Promise<void> => {
    const speechIt = (speechNative as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    const speechReader = new FrameReader(channels);
    let speechBuf: Float32Array = new Float32Array(0);
    let speechEnded = false;
    const reader = new FrameReader(channels);
    let done = 0;
    let reported = 0;
    for await (const chunk of native as AsyncIterable<Buffer>) {
      inner.throwIfAborted();
      const x = reader.read(chunk);
      while (!speechEnded && speechBuf.length < x.length) {
        const next = await speechIt.next();
        if (next.done) speechEnded = true;
        else speechBuf = concatSamples([speechBuf, speechReader.read(next.value)]);
      }
      const s = new Float32Array(x.length);
      s.set(speechBuf.subarray(0, Math.min(x.length, speechBuf.length)));
      speechBuf = speechBuf.slice(Math.min(x.length, speechBuf.length));
      const a = new Float32Array(x.length);
      for (let i = 0; i < x.length; i++) a[i] = x[i] - s[i];
      await Promise.all([write(speechOut, s), write(ambienceOut, a)]);
      done += x.length / channels / sampleRate;
      if (done - reported >= 1) {
        reported = done;
        hooks.onProgress({ done: Math.min(Math.round(done * 10) / 10, total || done), total: total || done, unit: 'seconds' });
      }
    }
    speechOut.end();
    ambienceOut.end();
    // The resampler may emit a few samples past the input's length: drain them so it can exit.
    while (!speechEnded) if ((await speechIt.next()).done) speechEnded = true;
    hooks.onProgress({ done: total || done, total: total || done, unit: 'seconds' });
  };

  try {
    await Promise.all([
      produce().catch(fail),
      combine().catch(fail),
      resampled.catch(fail),
      encode(speechOut, input.speechPath).catch(fail),
      encode(ambienceOut, input.ambiencePath).catch(fail),
    ]);
  } catch (error) {
    for (const s of [low, native, speechNative, speechOut, ambienceOut]) s.destroy();
    throw signal.aborted ? (signal.reason ?? error) : inner.reason instanceof Error ? inner.reason : error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Turns a byte stream into Float32Arrays of whole sample frames, carrying partial values to the next chunk. */
class FrameReader {
  private carry = Buffer.alloc(0);
  constructor(private readonly channels: number) {}

  read(chunk: Buffer): Float32Array {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const frameBytes = 4 * this.channels;
    const usable = bytes.length - (bytes.length % frameBytes);
    const out = new Float32Array(usable / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(4 * i);
    this.carry = Buffer.from(bytes.subarray(usable));
    return out;
  }
}

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
