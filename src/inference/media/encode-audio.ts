import { randomBytes } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';
import type { Logger } from '../../domain/logger.js';
import type { MediaBinaries } from './binaries.js';
import type { PcmFormat } from './decode.js';
import { MediaProcessError } from './errors.js';

/** Options of {@link encodeAudio}. */
export interface EncodeAudioOptions extends PcmFormat {
  /** `mp3` (libmp3lame, CBR) or `wav` (16-bit PCM). */
  format: 'mp3' | 'wav';
  /** Where to write the file; replaced if it exists, removed again on failure. */
  outputPath: string;
  /** mp3 bitrate in kbit/s (default 192). */
  bitrateKbps?: number;
  signal?: AbortSignal;
  /** Where a failed removal of the partial file is reported (default: the console). */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Encodes interleaved f32le PCM (as produced by {@link decodeAudio}) into an mp3 or wav file, streaming through
 * ffmpeg's stdin. Resolves when the file is complete; on any failure (ffmpeg error, source stream error, abort)
 * rejects, destroys `pcm` and leaves no partial file behind.
 *
 * This is the package's one use of fluent-ffmpeg (archived upstream): the input is our own PCM, never an
 * untrusted file, and the binary is set per command (no global state). Untrusted inputs go through
 * `spawnMedia` with a demuxer whitelist instead.
 */
export async function encodeAudio(pcm: Readable, options: EncodeAudioOptions, binaries: MediaBinaries): Promise<void> {
  const command = ffmpeg({ source: pcm })
    .setFfmpegPath(binaries.ffmpegPath)
    .inputFormat('f32le')
    .inputOptions(['-ar', String(options.sampleRate), '-ac', String(options.channels)]);
  if (options.format === 'mp3') command.audioCodec('libmp3lame').audioBitrate(options.bitrateKbps ?? 192).format('mp3');
  else command.audioCodec('pcm_s16le').format('wav');
  // Written aside and renamed when complete: an ffmpeg that is still flushing after a failure can only leave a
  // stray partial file, never a file at outputPath.
  const partial = `${options.outputPath}.partial-${randomBytes(4).toString('hex')}`;
  command.outputOptions(['-nostdin', '-hide_banner', '-loglevel', 'error']).output(`file:${partial}`);

  let sourceError: Error | undefined;
  const onSourceError = (error: Error): void => {
    sourceError = error;
  };
  pcm.once('error', onSourceError);
  const onAbort = () => command.kill('SIGKILL');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      command.once('end', () => resolve());
      command.once('error', (error: Error, _stdout: string | null, stderr: string | null) => {
        command.kill('SIGKILL');
        reject(new MediaProcessError('ffmpeg', `ffmpeg failed to encode ${options.format}: ${error.message}`, (stderr ?? '').slice(-2000), { cause: error }));
      });
      if (options.signal?.aborted) onAbort();
      command.run();
    });
    if (sourceError) throw sourceError;
    await rename(partial, options.outputPath);
  } catch (error) {
    pcm.destroy(); // e.g. stops a decodeAudio() feeding us, instead of leaving its ffmpeg paused forever
    const removePartial = () =>
      rm(partial, { force: true }).catch((cleanupError: unknown) => {
        const warn = options.logger?.warn.bind(options.logger) ?? ((m: string, f?: object) => console.warn(`[virtual-anchor] ${m}`, f));
        warn('could not remove a partial audio file', { path: partial, error: String(cleanupError) });
      });
    await removePartial();
    // Once more after the killed ffmpeg has surely exited (it may have reopened the file before the signal).
    setTimeout(() => void removePartial(), 1000).unref();
    throw sourceError ?? error;
  } finally {
    pcm.off('error', onSourceError);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
