import { spawn, type ChildProcess } from 'node:child_process';
import { MediaProcessError, type MediaTool } from './errors.js';
import { decodeBounds } from './frame-limit.js';

/**
 * Demuxers ffmpeg/ffprobe may use on untrusted input. Playlist and script demuxers (hls, dash, concat, ...) are
 * left out on purpose: they open further files or URLs named inside the input (SSRF, local file disclosure).
 */
export const SAFE_DEMUXERS: readonly string[] = [
  // audio
  'mp3', 'wav', 'w64', 'flac', 'ogg', 'aac', 'aiff', 'caf', 'amr', 'wv', 'ape',
  // audio/video containers (`mov` is the demuxer "mov,mp4,m4a,3gp,3g2,mj2", `matroska` is "matroska,webm")
  'mov', 'matroska', 'asf', 'avi', 'mpegts', 'mpeg', 'flv',
  // still images
  'image2', 'png_pipe', 'jpeg_pipe', 'webp_pipe', 'bmp_pipe', 'tiff_pipe', 'gif', 'gif_pipe',
];

/**
 * ffmpeg/ffprobe input options for an untrusted local file: only the `file` protocol and
 * {@link SAFE_DEMUXERS}, its decoders bounded (no frame over `MAX_DECODED_FRAME_PIXELS`, see frame-limit.ts),
 * followed by `-i file:<path>` (the `file:` prefix stops a path from being read as another protocol or an option).
 */
export function untrustedFileInput(path: string): string[] {
  return ['-protocol_whitelist', 'file', '-format_whitelist', SAFE_DEMUXERS.join(','), ...decodeBounds(), '-i', `file:${path}`];
}

/** A running ffmpeg/ffprobe. */
export interface MediaProcess {
  child: ChildProcess;
  /** Settles when the process has exited and its stdio closed; rejects unless it exited with 0. */
  exited: Promise<void>;
}

/** Options of {@link spawnMedia}. */
export interface SpawnMediaOptions {
  /** Kills the process; {@link MediaProcess.exited} then rejects. */
  signal?: AbortSignal;
  /** Kills the process after this many milliseconds. */
  timeoutMs?: number;
  /** Give stdin a pipe (default: ignored). */
  stdin?: boolean;
  /** Text replaced by `<input>` in error messages (e.g. a server-side path). */
  redact?: string;
  /** Pipes to open past stderr, as fds 3, 4, … (`child.stdio[3]`, …), for a process writing several outputs. */
  extraOutputs?: number;
}

const STDERR_TAIL_CHARS = 4000;

/** Spawns ffmpeg/ffprobe with stdout piped and a bounded tail of stderr kept for error messages. */
export function spawnMedia(tool: MediaTool, binary: string, args: string[], options: SpawnMediaOptions = {}): MediaProcess {
  const child = spawn(binary, args, {
    // stdout, stderr, then one more pipe per extra output (fds 3, 4, …: ffmpeg writes them as `pipe:3`, …).
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...Array.from({ length: options.extraOutputs ?? 0 }, () => 'pipe' as const)],
    signal: options.signal,
    timeout: options.timeoutMs,
    killSignal: 'SIGKILL',
    windowsHide: true,
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const exited = new Promise<void>((resolve, reject) => {
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('close', (code, killedBy) => {
      if (code === 0 && !spawnError) return resolve();
      reject(exitError(tool, { code, signal: killedBy, stderr, spawnError }, options));
    });
  });
  return { child, exited };
}

/** How a media process ended: its exit code or signal, the tail of its stderr, and why it could not start (if so). */
export interface MediaExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  spawnError?: Error;
}

/**
 * The error of a media process that did not exit with 0 (`exit`): why (it could not start, was killed, exited with a
 * code) and the last line of its stderr, with `options.redact` replaced; the whole tail is kept as `stderrTail`.
 */
export function exitError(tool: MediaTool, exit: MediaExit, options: Pick<SpawnMediaOptions, 'redact' | 'timeoutMs'> = {}): MediaProcessError {
  const { code, signal, spawnError } = exit;
  const tail = redact(exit.stderr.trim(), options.redact);
  const why = spawnError
    ? `${tool} failed: ${spawnError.message}`
    : signal
      ? `${tool} was killed (${signal})${options.timeoutMs ? ` or timed out after ${options.timeoutMs} ms` : ''}`
      : `${tool} exited with code ${code}`;
  const lastLine = tail.split('\n').at(-1);
  return new MediaProcessError(tool, lastLine ? `${why}: ${lastLine}` : why, tail, { cause: spawnError });
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('<input>') : text;
}
