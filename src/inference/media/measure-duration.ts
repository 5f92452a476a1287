import type { MediaBinaries } from './binaries.js';
import { SAMPLE_CLOCK_FILTER, decodedDurationCap } from './duration-cap.js';
import { untrustedFileInput } from './process.js';
import { runMedia } from './run-media.js';

/** Options of {@link measureAudioDuration}. */
export interface MeasureDurationOptions {
  /**
   * Decode at most this many seconds of audio (ffmpeg stops there). The cost of a measurement is bounded by it, not
   * by the size of the file; the answer is then at most `maxSec`. To tell "longer than L" reliably, ask for a little
   * more than L (see the precision note of {@link measureAudioDuration}).
   */
  maxSec?: number;
  /** Kills ffmpeg; {@link measureAudioDuration} then rejects. Pair it with a deadline. */
  signal?: AbortSignal;
}

/** Bound on ffmpeg's `-progress` output (a report of ~300 bytes every half second of wall time). */
const MAX_PROGRESS_CHARS = 1 << 20;

/**
 * Measures how long the first audio stream of a local file really is by decoding it (never trusting a header),
 * in one ffmpeg child process, started from a child process (a spawn forks the host; see `runMedia`): decoded samples are timed by {@link SAMPLE_CLOCK_FILTER}, thrown away by the `null`
 * muxer, and the output time of ffmpeg's final `-progress` report is the decoded duration in seconds (samples ÷
 * sample rate), at most `maxSec`. Nothing but a few lines of progress crosses the pipe, and no PCM is converted or
 * copied.
 *
 * Precision: exact with ffmpeg up to 6.0, which reports the end of the last packet; ffmpeg 6.1 and later report its
 * start, so the answer can be short by one decoded frame (a few hundredths of a second for mp3, AAC or Opus).
 *
 * @throws {MediaProcessError} when ffmpeg cannot be started, fails on the file, or `signal` aborts it.
 */
export async function measureAudioDuration(
  path: string,
  binaries: MediaBinaries,
  options: MeasureDurationOptions = {},
): Promise<number> {
  const cap = options.maxSec !== undefined && Number.isFinite(options.maxSec) ? Math.max(0, options.maxSec) : undefined;
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1',
    ...untrustedFileInput(path),
    '-map', '0:a:0', '-vn', '-sn', '-dn',
    ...(cap === undefined ? ['-af', SAMPLE_CLOCK_FILTER] : decodedDurationCap(cap)),
    '-f', 'null', '-',
  ];
  const progress = await runMedia('ffmpeg', binaries.ffmpegPath, args, {
    signal: options.signal,
    redact: path,
    maxOutputChars: MAX_PROGRESS_CHARS,
  });
  const seconds = lastOutputTime(progress);
  return cap === undefined ? seconds : Math.min(seconds, cap);
}

/**
 * The output time of the last progress report, in seconds; 0 when there is none (nothing decoded). ffmpeg writes
 * `out_time_us` (since 4.2) and `out_time_ms` (older; microseconds too, despite its name), or `N/A` before the first
 * packet.
 */
function lastOutputTime(progress: string): number {
  const matches = [...progress.matchAll(/^out_time_(?:us|ms)=(\d+)\s*$/gm)];
  const micros = Number(matches.at(-1)?.[1] ?? '0');
  return Number.isFinite(micros) ? micros / 1e6 : 0;
}
