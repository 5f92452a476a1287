import { PassThrough, type Readable } from 'node:stream';
import type { MediaBinaries } from './binaries.js';
import { decodedDurationCap } from './duration-cap.js';
import { spawnMedia, untrustedFileInput } from './process.js';

/** Layout of raw PCM: interleaved 32-bit little-endian floats. */
export interface PcmFormat {
  /** Samples per second per channel, e.g. 16000 or 44100. */
  sampleRate: number;
  /** 1 = mono, 2 = stereo (interleaved). */
  channels: number;
}

/** Options of {@link decodeAudio}. */
export interface DecodeOptions extends PcmFormat {
  /** Kills ffmpeg; the stream then errors. Destroying the stream kills ffmpeg too. */
  signal?: AbortSignal;
  /**
   * Decode at most this many seconds (counted in decoded samples, whatever the container's timestamps say): the
   * stream then ends cleanly. Give the job's duration so that a file that lies about its length cannot make an
   * engine read more than was accepted.
   */
  maxDurationSec?: number;
}

/**
 * Decodes the first audio stream of a local file (audio or video) to interleaved f32le PCM at the requested rate
 * and channel count, streaming from ffmpeg's stdout. When ffmpeg fails, the stream is destroyed with a
 * {@link MediaProcessError} carrying the tail of ffmpeg's stderr; it never ends cleanly on a failure.
 */
export function decodeAudio(path: string, format: DecodeOptions, binaries: MediaBinaries): Readable {
  return decodeAudioAs(path, [format], format, binaries)[0]!;
}

/**
 * Decodes the first audio stream of a local file once into several PCM formats: one ffmpeg, which demuxes and
 * decodes the input once and resamples it for each format (the samples are those {@link decodeAudio} gives for that
 * format). A format without `sampleRate` or `channels` keeps the input's. One stream per format, in order; each ends cleanly only when ffmpeg succeeded, and all are destroyed with
 * its error when it failed. Read them all as they come: ffmpeg writes them in step, so one left unread stalls the
 * others once its pipe is full.
 */
export function decodeAudioAs(
  path: string,
  formats: readonly Partial<PcmFormat>[],
  options: Pick<DecodeOptions, 'signal' | 'maxDurationSec'>,
  binaries: MediaBinaries,
): Readable[] {
  if (formats.length === 0) throw new RangeError('decodeAudioAs needs at least one format');
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', ...untrustedFileInput(path)];
  formats.forEach((format, i) => {
    args.push(
      '-map', '0:a:0', '-vn', '-sn', '-dn',
      ...decodedDurationCap(options.maxDurationSec),
      ...(format.channels === undefined ? [] : ['-ac', String(format.channels)]),
      ...(format.sampleRate === undefined ? [] : ['-ar', String(format.sampleRate)]),
      '-c:a', 'pcm_f32le', '-f', 'f32le', `pipe:${outputFd(i)}`,
    );
  });
  const proc = spawnMedia('ffmpeg', binaries.ffmpegPath, args, { signal: options.signal, redact: path, extraOutputs: formats.length - 1 });
  const outs = formats.map((_, i) => {
    const out = new PassThrough();
    // Do not let the pipe's end end `out`: only a zero exit status may end it, a failure must error it instead.
    (proc.child.stdio[outputFd(i)] as Readable | null)?.pipe(out, { end: false });
    return out;
  });
  proc.exited.then(
    () => {
      for (const out of outs) if (!out.destroyed) out.end();
    },
    (error: Error) => {
      for (const out of outs) out.destroy(error);
    },
  );
  for (const out of outs) {
    out.once('close', () => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    });
  }
  return outs;
}

/** The fd ffmpeg writes output `i` to: stdout, then 3, 4, … (2 is its stderr). */
function outputFd(i: number): number {
  return i === 0 ? 1 : i + 2;
}
