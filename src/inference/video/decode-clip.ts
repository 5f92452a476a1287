/**
 * A clip's frames, streamed from ffmpeg as raw yuv420p (what H.264 stores: nothing is converted that need not be):
 * upright (ffmpeg applies the rotation metadata), at a constant frame rate, at the normalised size or covering
 * another frame size (scaled and centre-cropped as every avatar is framed). At most a few frames are held at once:
 * memory does not grow with the clip's length.
 */
import type { MediaBinaries } from '../media/binaries.js';
import type { MediaSpawner, StdoutProcess } from '../media/media-spawner.js';
import { spawnMedia, untrustedFileInput } from '../media/process.js';
import { yuv420Bytes } from '../media/raw-video.js';
import type { ClipGeometry } from './clip-probe.js';

/** Where a clip's pixel lands in the decoded frame: `x' = x · scale − offsetX` (and so for y). */
export interface FrameMapping {
  scale: number;
  offsetX: number;
  offsetY: number;
}

/** Options of {@link decodeClip}. */
export interface DecodeClipOptions {
  /** The clip's normalised size and rate (see `normalisedGeometry`). */
  geometry: ClipGeometry;
  /** Decode to this size instead (scaled to cover it and centre-cropped; even sides). */
  outputSize?: { width: number; height: number };
  /** Decode at most this many frames. */
  maxFrames?: number;
  /** Whether the file is already normalised (a prepared clip: no rate or size change is needed). */
  normalised?: boolean;
  /** Kills ffmpeg; the iteration then throws the reason. */
  signal?: AbortSignal;
}

/**
 * One decoded frame; call `release` once its bytes are no longer read: the buffer is then reused for a later frame
 * (frames never released are left to the garbage collector). ffmpeg decodes only as fast as frames are asked for.
 */
export interface DecodedFrame {
  index: number;
  /** yuv420p: Y (`width × height`), then U and V (half size each way). */
  pixels: Uint8Array;
  release(): void;
}

/** The size frames come out at, and how clip pixels map onto them. */
export function decodedFrame(geometry: ClipGeometry, outputSize?: { width: number; height: number }): { width: number; height: number; mapping: FrameMapping } {
  if (!outputSize) return { width: geometry.width, height: geometry.height, mapping: { scale: 1, offsetX: 0, offsetY: 0 } };
  const { scaledWidth, scaledHeight, scale } = coverSize(geometry, outputSize);
  return {
    width: outputSize.width,
    height: outputSize.height,
    mapping: { scale, offsetX: Math.floor((scaledWidth - outputSize.width) / 2), offsetY: Math.floor((scaledHeight - outputSize.height) / 2) },
  };
}

function coverSize(geometry: ClipGeometry, size: { width: number; height: number }) {
  const scale = Math.max(size.width / geometry.width, size.height / geometry.height);
  // Whole pixels at least as large as the output; the scale actually applied is the width's (aspect kept to a pixel).
  const scaledWidth = Math.max(size.width, Math.round(geometry.width * scale));
  const scaledHeight = Math.max(size.height, Math.round(geometry.height * scale));
  return { scaledWidth, scaledHeight, scale: scaledWidth / geometry.width };
}

/** The ffmpeg filter chain of {@link decodeClip}. */
export function clipFilters(options: Pick<DecodeClipOptions, 'geometry' | 'outputSize' | 'normalised'>): string {
  const { geometry, outputSize } = options;
  const filters = options.normalised ? [] : [`fps=${geometry.fps}`, `scale=${geometry.width}:${geometry.height}:flags=bicubic`, 'setsar=1'];
  if (outputSize) {
    const { scaledWidth, scaledHeight } = coverSize(geometry, outputSize);
    const { mapping } = decodedFrame(geometry, outputSize);
    if (scaledWidth !== geometry.width || scaledHeight !== geometry.height) filters.push(`scale=${scaledWidth}:${scaledHeight}:flags=bicubic`);
    if (scaledWidth !== outputSize.width || scaledHeight !== outputSize.height) filters.push(`crop=${outputSize.width}:${outputSize.height}:${mapping.offsetX}:${mapping.offsetY}`);
  }
  filters.push('format=yuv420p');
  return filters.join(',');
}

/**
 * The frames of the clip at `path` (see the module comment), in order. Throws ffmpeg's error (a
 * `MediaProcessError` with its last line) when it fails, or the abort reason; stopping the iteration kills ffmpeg.
 * With `spawner`, ffmpeg is started from the spawner's small process (see media-spawner.ts) and writes the frames
 * into the socket it hands back.
 */
export async function* decodeClip(path: string, options: DecodeClipOptions, binaries: MediaBinaries, spawner?: MediaSpawner): AsyncGenerator<DecodedFrame> {
  const { width, height } = decodedFrame(options.geometry, options.outputSize);
  const frameBytes = yuv420Bytes(width, height);
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error',
    ...untrustedFileInput(path),
    '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', clipFilters(options),
    ...(options.maxFrames !== undefined ? ['-frames:v', String(options.maxFrames)] : []),
    '-f', 'rawvideo', '-pix_fmt', 'yuv420p', spawner ? 'pipe:0' : 'pipe:1',
  ];
  const proc = spawner
    ? spawner.spawnWithOutputOnStdin('ffmpeg', binaries.ffmpegPath, args, { signal: options.signal, redact: path })
    : spawnedHere(args, path, options.signal, binaries);
  // A failed exit is read below; until then it must not count as unhandled.
  const exited = proc.exited.then(
    () => undefined,
    (error: Error) => error,
  );
  const stdout = (await proc.stdout) ?? emptyStream();
  const free: Uint8Array[] = [];
  let index = 0;
  let filled = 0;
  let current: Uint8Array | undefined;
  const take = (): Uint8Array => free.pop() ?? new Uint8Array(frameBytes);
  try {
    for await (const chunk of stdout as AsyncIterable<Buffer>) {
      let at = 0;
      while (at < chunk.length) {
        current ??= take();
        const n = Math.min(frameBytes - filled, chunk.length - at);
        current.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled < frameBytes) continue;
        const pixels = current;
        current = undefined;
        filled = 0;
        let released = false;
        yield {
          index: index++,
          pixels,
          release: () => {
            if (released) return;
            released = true;
            free.push(pixels);
          },
        };
      }
    }
    const error = await exited;
    options.signal?.throwIfAborted();
    if (error) throw error;
  } finally {
    proc.kill();
    if ('destroy' in stdout) stdout.destroy();
  }
}

/** ffmpeg `args` started by this process, its stdout as a {@link StdoutProcess}. */
function spawnedHere(args: string[], path: string, signal: AbortSignal | undefined, binaries: MediaBinaries): StdoutProcess {
  const { child, exited } = spawnMedia('ffmpeg', binaries.ffmpegPath, args, { signal, redact: path });
  return {
    stdout: Promise.resolve(child.stdout ?? undefined),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** No output (a process that could not start: its exit says why). */
async function* emptyStream(): AsyncGenerator<Buffer> {}
