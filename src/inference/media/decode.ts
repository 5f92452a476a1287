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
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    ...untrustedFileInput(path),
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    ...decodedDurationCap(format.maxDurationSec),
    '-ac', String(format.channels), '-ar', String(format.sampleRate),
    '-c:a', 'pcm_f32le', '-f', 'f32le', 'pipe:1',
  ];
  const proc = spawnMedia('ffmpeg', binaries.ffmpegPath, args, { signal: format.signal, redact: path });
  const out = new PassThrough();
  // Do not let stdout's end end `out`: only a zero exit status may end it, a failure must error it instead.
  proc.child.stdout?.pipe(out, { end: false });
  proc.exited.then(
    () => {
      if (!out.destroyed) out.end();
    },
    (error: Error) => out.destroy(error),
  );
  out.once('close', () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
  });
  return out;
}
