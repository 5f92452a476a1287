import { rename } from 'node:fs/promises';
import type { ChildProcess } from 'node:child_process';
import { finished, type Readable } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';
import type { Logger } from '../../domain/logger.js';
import type { MediaBinaries } from './binaries.js';
import type { PcmFormat } from './decode.js';
import { MediaProcessError } from './errors.js';
import { partialPathFor, removePartial } from './partial-file.js';

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
 * ffmpeg's stdin. Resolves when the file is complete; on any failure (ffmpeg error, source stream error or early
 * close, abort) rejects, destroys `pcm` and leaves no partial file behind. It settles only once the ffmpeg it
 * started has exited.
 *
 * This is the package's one use of fluent-ffmpeg (archived upstream): the input is our own PCM, never an
 * untrusted file, and the binary is set per command. Untrusted inputs go through `spawnMedia` with a demuxer
 * whitelist instead.
 *
 * fluent-ffmpeg spawns ffmpeg only after probing its formats and encoders (the first command of a process waits for
 * two more ffmpeg runs), and neither listens to the source nor can kill anything before that: a source that fails
 * meanwhile, or an abort, would leave the promise pending and the ffmpeg spawned later waiting on its stdin. So the
 * source is watched from the start (`finished`: an error or a close before its end), and a stop asked for before
 * the spawn kills ffmpeg as soon as it starts.
 */
export async function encodeAudio(pcm: Readable, options: EncodeAudioOptions, binaries: MediaBinaries): Promise<void> {
  // fluent-ffmpeg would take a destroyed stream for a file name ("Invalid input").
  if (pcm.destroyed) {
    pcm.on('error', () => {}); // its 'error' event may still be due: the rejection reports it
    throw pcm.errored ?? new Error('the PCM source was destroyed before encoding began');
  }
  const command = ffmpeg({ source: pcm })
    .setFfmpegPath(binaries.ffmpegPath)
    .inputFormat('f32le')
    .inputOptions(['-ar', String(options.sampleRate), '-ac', String(options.channels)]);
  if (options.format === 'mp3') command.audioCodec('libmp3lame').audioBitrate(options.bitrateKbps ?? 192).format('mp3');
  else command.audioCodec('pcm_s16le').format('wav');
  // Written aside and renamed when complete: an ffmpeg that is still flushing after a failure can only leave a
  // stray partial file, never a file at outputPath.
  const partial = partialPathFor(options.outputPath);
  command.outputOptions(['-nostdin', '-hide_banner', '-loglevel', 'error']).output(`file:${partial}`);

  /** The ffmpeg process, once spawned; `exited` settles when it has exited (or could not be spawned). */
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let killed = false;
  const kill = (): void => {
    killed = true;
    child?.kill('SIGKILL');
  };
  command.once('start', () => {
    // fluent-ffmpeg's handle on the process it just spawned (not in its typings).
    child = (command as unknown as { ffmpegProc: ChildProcess }).ffmpegProc;
    exited = new Promise<void>((resolve) => {
      child!.once('exit', () => resolve());
      child!.once('error', () => resolve());
    });
    if (killed) child.kill('SIGKILL');
  });

  let sourceError: Error | undefined;
  const stopWatching = finished(pcm, { writable: false }, (error) => {
    if (!error) return;
    sourceError ??= error;
    kill();
  });
  options.signal?.addEventListener('abort', kill, { once: true });
  try {
    await new Promise<void>((resolve, reject) => {
      command.once('end', () => resolve());
      command.once('error', (error: Error, _stdout: string | null, stderr: string | null) => {
        kill();
        reject(new MediaProcessError('ffmpeg', `ffmpeg failed to encode ${options.format}: ${error.message}`, (stderr ?? '').slice(-2000), { cause: error }));
      });
      if (options.signal?.aborted) kill();
      command.run();
    });
    if (sourceError) throw sourceError;
    await rename(partial, options.outputPath);
  } catch (error) {
    const failure = sourceError ?? error;
    pcm.destroy(); // e.g. stops a decodeAudio() feeding us, instead of leaving its ffmpeg paused forever
    await exited;
    await removePartial(partial, options.logger);
    throw failure;
  } finally {
    stopWatching();
    options.signal?.removeEventListener('abort', kill);
  }
}
