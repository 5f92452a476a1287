/**
 * Plain PCM WAV files read without ffmpeg: mono float samples at the rate asked, streamed from the file. Starting
 * ffmpeg costs 110–130 ms of CPU before its first sample (Debian's build links 215 shared libraries and binds them
 * all at start), more than reading and resampling 20 s of a WAV takes; for a recording that is already raw samples
 * that is the largest part of a short job's analysis. Any other file, or a WAV this reader does not take (see
 * wav-layout.ts, canResample), is decoded by ffmpeg as before.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { canResample, Resampler } from './resample.js';
import { readWavLayout, type WavLayout } from './wav-layout.js';

/** Options of {@link openWavPcm}. */
export interface WavPcmOptions {
  /** The output rate (samples per second). */
  sampleRate: number;
  /** Output at most this many seconds of samples, as ffmpeg's `-t` after decoding does. */
  maxDurationSec?: number;
  /** Stops reading; the iteration then throws the signal's reason. */
  signal?: AbortSignal;
}

/** Bytes read from the file at a time. */
const READ_BYTES = 256 * 1024;

/**
 * The samples of the plain PCM WAV file at `path`, mixed down to mono (a stereo file's two channels added at
 * −3 dB each, as ffmpeg's `-ac 1` mixes them) and resampled to `options.sampleRate`, in pieces of any size; none
 * when the file is not such a WAV (then decode it with ffmpeg). The file is opened at once; read errors end the
 * iteration with the error.
 */
export async function openWavPcm(path: string, options: WavPcmOptions): Promise<AsyncIterable<Float32Array> | undefined> {
  options.signal?.throwIfAborted();
  const file = await open(path, 'r');
  try {
    const layout = await readWavLayout(file, (await file.stat()).size);
    if (!layout || !canResample(layout.sampleRate, options.sampleRate)) {
      await file.close();
      return undefined;
    }
    return samples(file, layout, options);
  } catch (error) {
    await file.close();
    throw error;
  }
}

async function* samples(file: FileHandle, layout: WavLayout, options: WavPcmOptions): AsyncGenerator<Float32Array> {
  const { signal } = options;
  const resampler = layout.sampleRate === options.sampleRate ? undefined : new Resampler(layout.sampleRate, options.sampleRate);
  const cap = options.maxDurationSec !== undefined && Number.isFinite(options.maxDurationSec) && options.maxDurationSec >= 0
    ? Math.round(options.maxDurationSec * options.sampleRate)
    : Infinity;
  let left = cap;
  const frameBytes = layout.bytesPerSample * layout.channels;
  const buffer = Buffer.allocUnsafe(READ_BYTES - (READ_BYTES % frameBytes));
  try {
    for (let at = 0; at < layout.dataBytes && left > 0; ) {
      signal?.throwIfAborted();
      const want = Math.min(buffer.length, layout.dataBytes - at);
      const { bytesRead } = await file.read(buffer, 0, want, layout.dataOffset + at);
      if (bytesRead === 0) break; // the file shrank meanwhile
      const whole = bytesRead - (bytesRead % frameBytes);
      at += whole;
      const mono = toMono(buffer.subarray(0, whole), layout);
      const out = resampler ? resampler.push(mono) : mono;
      if (out.length > 0) yield out.length > left ? out.subarray(0, left) : out;
      left -= out.length;
      if (whole < bytesRead) break;
    }
    if (resampler && left > 0) {
      const rest = resampler.finish();
      if (rest.length > 0) yield rest.length > left ? rest.subarray(0, left) : rest;
    }
    signal?.throwIfAborted();
  } finally {
    await file.close();
  }
}

/** Whole sample frames of `layout` as mono floats in [−1, 1). */
function toMono(bytes: Buffer, layout: WavLayout): Float32Array {
  const { channels, bytesPerSample, encoding } = layout;
  const frames = bytes.length / (bytesPerSample * channels);
  const out = new Float32Array(frames);
  const read = sampleReader(bytes, bytesPerSample, encoding);
  if (channels === 1) {
    for (let i = 0; i < frames; i++) out[i] = read(i * bytesPerSample);
  } else {
    const step = 2 * bytesPerSample;
    for (let i = 0; i < frames; i++) out[i] = Math.SQRT1_2 * (read(i * step) + read(i * step + bytesPerSample));
  }
  return out;
}

function sampleReader(bytes: Buffer, size: WavLayout['bytesPerSample'], encoding: WavLayout['encoding']): (at: number) => number {
  if (encoding === 'float') return size === 4 ? (at) => bytes.readFloatLE(at) : (at) => bytes.readDoubleLE(at);
  switch (size) {
    case 1:
      return (at) => (bytes[at]! - 128) / 128;
    case 2:
      return (at) => bytes.readInt16LE(at) / 32768;
    case 3:
      return (at) => bytes.readIntLE(at, 3) / 8388608;
    default:
      return (at) => bytes.readInt32LE(at) / 2147483648;
  }
}
