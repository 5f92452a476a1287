import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { MediaBinaries } from './binaries.js';
import type { PcmFormat } from './decode.js';
import { spawnMedia } from './process.js';

/** Options of {@link encodeAudio}. */
export interface EncodeAudioOptions extends PcmFormat {
  /** `mp3` (libmp3lame, CBR) or `wav` (16-bit PCM). */
  format: 'mp3' | 'wav';
  /** Where to write the file; replaced if it exists, removed again on failure. */
  outputPath: string;
  /** mp3 bitrate in kbit/s (default 192). */
  bitrateKbps?: number;
  signal?: AbortSignal;
}

/**
 * Encodes interleaved f32le PCM (as produced by {@link decodeAudio}) into an mp3 or wav file, streaming through
 * ffmpeg's stdin. Resolves when the file is complete; on any failure (ffmpeg error, source stream error, abort)
 * rejects, destroys `pcm` and leaves no partial file behind.
 */
export async function encodeAudio(pcm: Readable, options: EncodeAudioOptions, binaries: MediaBinaries): Promise<void> {
  const codec =
    options.format === 'mp3'
      ? ['-c:a', 'libmp3lame', '-b:a', `${options.bitrateKbps ?? 192}k`, '-f', 'mp3']
      : ['-c:a', 'pcm_s16le', '-f', 'wav'];
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    '-f', 'f32le', '-ar', String(options.sampleRate), '-ac', String(options.channels), '-i', 'pipe:0',
    ...codec, '-y', `file:${options.outputPath}`,
  ];
  const proc = spawnMedia('ffmpeg', binaries.ffmpegPath, args, { signal: options.signal, stdin: true });
  const stdin = proc.child.stdin;
  let sourceError: Error | undefined;
  const onSourceError = (error: Error): void => {
    sourceError = error;
    proc.child.kill('SIGKILL');
  };
  pcm.once('error', onSourceError);
  // EPIPE when ffmpeg exits early; the exit status tells the real story.
  stdin?.on('error', () => undefined);
  if (stdin) pcm.pipe(stdin);
  try {
    await proc.exited;
    if (sourceError) throw sourceError;
  } catch (error) {
    pcm.destroy(); // e.g. stops a decodeAudio() feeding us, instead of leaving its ffmpeg paused forever
    await rm(options.outputPath, { force: true });
    throw sourceError ?? error;
  } finally {
    pcm.off('error', onSourceError);
    if (stdin) pcm.unpipe(stdin);
  }
}
