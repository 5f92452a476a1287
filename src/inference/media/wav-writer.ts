/**
 * Writes interleaved f32le PCM as a 16-bit PCM WAV file in this process, for mono and stereo: the samples ffmpeg's
 * `pcm_s16le` encoder writes from the same floats (each value times 32 768, rounded to the nearest integer, ties to
 * even, and clipped to 16 bits, as swresample converts), without starting ffmpeg. The separation wrote its two stems
 * through two ffmpeg processes a job; each cost ~60 ms of CPU to start and copy the stream (Debian's build, 30 s of
 * stereo), and each was forked from the separation child. Files of more than two channels (whose WAV header needs the
 * input's channel layout) and mp3 stay with {@link encodeAudio}. The conversion runs in WebAssembly (pcm16-wasm.ts)
 * where the module loads, else in TypeScript ({@link pcm16}): the same values.
 */
import { open, rename, type FileHandle } from 'node:fs/promises';
import { finished, type Readable } from 'node:stream';
import type { Logger } from '../../domain/logger.js';
import { partialPathFor, removePartial } from './partial-file.js';
import { PcmFrameReader } from './pcm-frames.js';
import { Pcm16Conversion } from './pcm16-wasm.js';

/** Options of {@link writeWavPcm16}. */
export interface WavPcm16Options {
  sampleRate: number;
  /** 1 or 2 (see the module comment). */
  channels: number;
  /** Where to write the file; replaced if it exists, removed again on failure. */
  outputPath: string;
  signal?: AbortSignal;
  /** Where a failed removal of the partial file is reported (default: the console). */
  logger?: Pick<Logger, 'warn'>;
}

/** The canonical header's length: RIFF, `fmt ` (16 bytes of PCM format) and the `data` chunk's header. */
const HEADER_BYTES = 44;
/** The most sample bytes a RIFF file's 32-bit sizes can describe. */
const MAX_DATA_BYTES = 0xffffffff - (HEADER_BYTES - 8);
/** 1.5 × 2^52: added to and taken from a float64 below 2^51, it rounds it to an integer, ties to even. */
const ROUND_TO_EVEN = 6_755_399_441_055_744;

/**
 * Writes `pcm` (interleaved f32le samples, chunks of any size) into a 16-bit WAV file at `options.outputPath`.
 * Resolves when the file is complete; on any failure (the source's error or early close, an abort, a write that
 * fails, more sound than a WAV file can hold) rejects, destroys `pcm` and leaves no partial file behind, as
 * {@link encodeAudio} does.
 * @throws RangeError for a channel count other than 1 or 2, or a sample rate that is not a positive integer.
 */
export async function writeWavPcm16(pcm: Readable, options: WavPcm16Options): Promise<void> {
  const { sampleRate, channels } = options;
  if (channels !== 1 && channels !== 2) throw new RangeError(`writeWavPcm16 writes mono or stereo, not ${channels} channels`);
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) throw new RangeError(`sample rate must be a positive integer, not ${sampleRate}`);
  // Written aside and renamed when complete: a failure never leaves a file at outputPath.
  const partial = partialPathFor(options.outputPath);
  let file: FileHandle | undefined;
  let wasm: Pcm16Conversion | undefined;
  const stop = new AbortController();
  const onAbort = (): void => {
    stop.abort(options.signal?.reason);
    pcm.destroy();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  // A source that fails or closes before its end stops the loop below (its iterator throws or ends early).
  const ended = new Promise<Error | undefined>((resolve) => finished(pcm, { writable: false }, (error) => resolve(error ?? undefined)));
  try {
    options.signal?.throwIfAborted();
    file = await open(partial, 'w');
    await file.write(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
    let dataBytes = 0;
    wasm = Pcm16Conversion.create();
    // Whole sample frames: a frame split between two chunks waits for the next, and one cut short at the end is
    // dropped, as ffmpeg drops it.
    const reader = new PcmFrameReader(channels);
    for await (const chunk of pcm as AsyncIterable<Buffer>) {
      stop.signal.throwIfAborted();
      const floats = reader.read(chunk);
      if (floats.length === 0) continue;
      if (dataBytes + 2 * floats.length > MAX_DATA_BYTES) throw new RangeError('the sound is longer than a WAV file can hold (4 GiB)');
      const out = wasm ? wasm.convert(floats) : pcm16(floats);
      await file.write(out, 0, out.length, HEADER_BYTES + dataBytes);
      dataBytes += out.length;
    }
    const error = await ended;
    if (error) throw error;
    stop.signal.throwIfAborted();
    await file.write(wavHeader(sampleRate, channels, dataBytes), 0, HEADER_BYTES, 0);
    await file.close();
    file = undefined;
    await rename(partial, options.outputPath);
  } catch (error) {
    pcm.destroy();
    await file?.close().catch(() => undefined);
    await removePartial(partial, options.logger);
    throw stop.signal.aborted ? (options.signal?.reason ?? error) : error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    wasm?.release();
  }
}

/**
 * `floats` as s16le (see the module comment), in TypeScript: what pcm16-wasm.ts computes eight at a time, for an
 * engine that cannot have it.
 */
export function pcm16(floats: Float32Array): Buffer {
  const samples = floats.length;
  const out = Buffer.allocUnsafe(2 * samples);
  const ints = new Int16Array(out.buffer, out.byteOffset, samples);
  for (let i = 0; i < samples; i++) {
    const value = floats[i]! * 32768 + ROUND_TO_EVEN - ROUND_TO_EVEN;
    // NaN fails both tests and is stored as 0 (WebAssembly's saturating conversion gives 0 too).
    ints[i] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return out;
}

/** The 44-byte header of a PCM WAV file holding `dataBytes` bytes of 16-bit samples. */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
