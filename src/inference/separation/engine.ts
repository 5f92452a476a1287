/**
 * {@link SeparationEngine} on the ONNX mask net. Method (see training/separation/README.md):
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
import type { Logger } from '../../core/logger.js';
import type { EngineContext, SeparationEngine, SeparationInput, SeparationOutput } from '../engines.js';
import {
  decodeAudio,
  encodeAudio,
  probeMedia,
  resolveMediaBinaries,
  spawnMedia,
  type MediaBinaries,
} from '../media/index.js';
import { DEFAULT_SEPARATION_MODEL, SeparationModel } from './model.js';
import { StreamingSeparator, concatSamples } from './separator.js';
import { MODEL_RATE } from './stft.js';

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
  /** onnxruntime threads per inference (default 1). */
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
  /** Where the execution provider in use is logged (info) once per model load (default: console.info). */
  logger?: Pick<Logger, 'info'>;
}

/** Default longest input: 1 hour (about 2–3 minutes of one CPU core at the measured ≥ 20× real time). */
export const MAX_SEPARATION_SECONDS = 3600;

const CONTENT_TYPES = { wav: 'audio/wav', mp3: 'audio/mpeg' } as const;

export class OnnxSeparationEngine implements SeparationEngine {
  private readonly format: 'wav' | 'mp3';
  private binariesPromise?: Promise<MediaBinaries>;
  private readonly logged = new Set<SeparationModel>();

  constructor(private readonly options: OnnxSeparationEngineOptions = {}) {
    this.format = options.format ?? 'wav';
    if (this.format !== 'wav' && this.format !== 'mp3') throw new Error(`unsupported separation output format: ${String(this.format)}`);
  }

  /** Loads the model (cached per process) and logs the execution provider on first use. */
  async loadModel(): Promise<SeparationModel> {
    const model = await SeparationModel.load(this.options.modelPath ?? DEFAULT_SEPARATION_MODEL, {
      intraOpNumThreads: this.options.intraOpNumThreads ?? 1,
      executionProviders: this.options.executionProviders,
    });
    if (!this.logged.has(model)) {
      this.logged.add(model);
      const logger = this.options.logger ?? { info: (m: string, f?: Record<string, unknown>) => console.info(`[virtual-anchor] ${m}`, f ?? '') };
      logger.info('source separation model loaded', {
        executionProviders: model.executionProviders,
        intraOpNumThreads: this.options.intraOpNumThreads ?? 1,
      });
    }
    return model;
  }

  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    const { signal } = context;
    signal.throwIfAborted();
    this.binariesPromise ??= this.options.binaries ? Promise.resolve(this.options.binaries) : resolveMediaBinaries();
    const binaries = await this.binariesPromise;
    const probe = await probeMedia(input.audioPath, binaries, { signal });
    if (!probe.audio) throw new Error('the input has no audio stream: there is nothing to separate');
    const maxSec = this.options.maxDurationSec ?? MAX_SEPARATION_SECONDS;
    const durationSec = Math.max(input.durationSec, probe.durationSec);
    if (durationSec > maxSec) {
      throw new Error(`the input lasts ${durationSec.toFixed(1)} s, longer than the ${maxSec} s separation limit`);
    }
    const sampleRate = probe.audio.sampleRate > 0 ? probe.audio.sampleRate : 44100;
    let channels = probe.audio.channels > 0 ? probe.audio.channels : 1;
    if (this.format === 'mp3') channels = Math.min(channels, 2); // mp3 carries at most two channels
    const model = await this.loadModel();

    const abort = new AbortController();
    const onAbort = (): void => abort.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const inner = abort.signal;
    const fail = (error: unknown): never => {
      if (!inner.aborted) abort.abort(error);
      throw error;
    };

    const encode = (pcm: Readable, outputPath: string): Promise<void> =>
      encodeAudio(pcm, { sampleRate, channels, format: this.format, outputPath, bitrateKbps: this.options.mp3BitrateKbps, signal: inner }, binaries);
    const speechOut = new PassThrough();
    const ambienceOut = new PassThrough();
    const low = decodeAudio(input.audioPath, { sampleRate: MODEL_RATE, channels, signal: inner }, binaries);
    const native = decodeAudio(input.audioPath, { sampleRate, channels, signal: inner }, binaries);
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
      chunkFrames: Math.round(((this.options.chunkSeconds ?? 8) * MODEL_RATE) / 256),
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
          context.onProgress({ done: Math.min(Math.round(done * 10) / 10, total || done), total: total || done, unit: 'seconds' });
        }
      }
      speechOut.end();
      ambienceOut.end();
      // The resampler may emit a few samples past the input's length: drain them so it can exit.
      while (!speechEnded) if ((await speechIt.next()).done) speechEnded = true;
      context.onProgress({ done: total || done, total: total || done, unit: 'seconds' });
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
    return { contentType: CONTENT_TYPES[this.format], extension: this.format };
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
