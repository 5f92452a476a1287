import { z } from 'zod';
import type { MediaBinaries } from './binaries.js';
import { classifyContainer, type MediaContainer } from './container.js';
import { MediaProbeError, MediaProcessError } from './errors.js';
import { untrustedFileInput } from './process.js';
import { runMedia } from './run-media.js';

/** The first audio stream of a probed file. */
export interface ProbedAudio {
  codec: string;
  sampleRate: number;
  channels: number;
}

/** The first video stream of a probed file (a real video track wins over embedded cover art). */
export interface ProbedVideo {
  codec: string;
  width: number;
  height: number;
  /** Average frame rate; 0 when ffprobe does not know it. */
  fps: number;
  /** True for cover art embedded in an audio file (mp3/m4a `attached_pic`). */
  attachedPic: boolean;
  /**
   * Clockwise rotation (0, 90, 180 or 270) a player applies for display, from the stream's `rotate` tag (older
   * muxers) or its display matrix (phone clips); ffmpeg applies it when decoding. `width`/`height` are as coded.
   */
  rotation: number;
}

/** What {@link probeMedia} learned about a file. */
export interface MediaProbe {
  /** ffprobe's `format_name`, split on commas (`['mov', 'mp4', 'm4a', '3gp', '3g2', 'mj2']`). */
  formatNames: string[];
  /**
   * Duration in seconds as the file's header claims it (0 when it claims none, as for still images). A header can
   * lie: limits are checked against the decoded duration (`measureAudioDuration`), never against this.
   */
  durationSec: number;
  audio?: ProbedAudio;
  video?: ProbedVideo;
  /** Number of streams of each type (cover art counts as video). */
  streamCounts: { audio: number; video: number };
  container: MediaContainer;
}

/** Options of {@link probeMedia}. */
export interface ProbeOptions {
  /** Kill ffprobe after this long (default 30 s): a hostile file must not hang a request. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const MAX_PROBE_OUTPUT = 4 * 1024 * 1024;

const numeric = z.union([z.number(), z.string()]).optional();
const ffprobeOutput = z.object({
  format: z
    .object({
      format_name: z.string().optional(),
      duration: numeric,
      tags: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        sample_rate: numeric,
        channels: z.number().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        avg_frame_rate: z.string().optional(),
        r_frame_rate: z.string().optional(),
        duration: numeric,
        disposition: z.record(z.string(), z.number()).optional(),
        tags: z.record(z.string(), z.string()).optional(),
        side_data_list: z.array(z.object({ rotation: z.number().optional() }).passthrough()).optional(),
      }),
    )
    .optional(),
});
type FfprobeStream = NonNullable<z.infer<typeof ffprobeOutput>['streams']>[number];

/**
 * Probes a local file with ffprobe (restricted to safe demuxers and the `file` protocol) and decides its
 * container from the content, not the extension.
 *
 * @throws {MediaProbeError} when ffprobe cannot read the file, times out on it, or finds neither audio nor video.
 * @throws {MediaProcessError} when ffprobe cannot be started or `signal` aborts it.
 */
export async function probeMedia(path: string, binaries: MediaBinaries, options: ProbeOptions = {}): Promise<MediaProbe> {
  const args = ['-v', 'error', '-hide_banner', '-print_format', 'json', '-show_format', '-show_streams'];
  let stdout: string;
  try {
    stdout = await runMedia('ffprobe', binaries.ffprobePath, [...args, ...untrustedFileInput(path)], {
      timeoutMs: options.timeoutMs ?? 30_000,
      signal: options.signal,
      redact: path,
      maxOutputChars: MAX_PROBE_OUTPUT,
    });
  } catch (error) {
    if (error instanceof MediaProcessError && error.cause !== undefined) throw error;
    if (options.signal?.aborted) throw error;
    throw new MediaProbeError(`not a readable media file (${(error as Error).message})`, { cause: error });
  }
  return interpret(parse(stdout));
}

function parse(stdout: string): z.infer<typeof ffprobeOutput> {
  try {
    return ffprobeOutput.parse(JSON.parse(stdout));
  } catch (error) {
    throw new MediaProbeError('ffprobe produced output that could not be understood', { cause: error });
  }
}

function interpret(output: z.infer<typeof ffprobeOutput>): MediaProbe {
  const streams = output.streams ?? [];
  const audioStreams = streams.filter((s) => s.codec_type === 'audio');
  const videoStreams = streams.filter((s) => s.codec_type === 'video');
  if (audioStreams.length === 0 && videoStreams.length === 0) {
    throw new MediaProbeError('the file has no audio or video stream');
  }
  const formatNames = (output.format?.format_name ?? '').split(',').filter((n) => n !== '');
  const audio = audioStreams[0] && toAudio(audioStreams[0]);
  const videoStream = videoStreams.find((s) => !isAttachedPic(s)) ?? videoStreams[0];
  const tags = output.format?.tags ?? {};
  const container = classifyContainer({
    formatNames,
    majorBrand: tags.major_brand,
    compatibleBrands: tags.compatible_brands,
    audioCodec: audio?.codec,
  });
  return {
    formatNames,
    durationSec: duration(output.format?.duration, streams),
    ...(audio ? { audio } : {}),
    ...(videoStream ? { video: toVideo(videoStream) } : {}),
    streamCounts: { audio: audioStreams.length, video: videoStreams.length },
    container,
  };
}

function toAudio(stream: FfprobeStream): ProbedAudio {
  return {
    codec: stream.codec_name ?? 'unknown',
    sampleRate: toNumber(stream.sample_rate) ?? 0,
    channels: stream.channels ?? 0,
  };
}

function toVideo(stream: FfprobeStream): ProbedVideo {
  return {
    codec: stream.codec_name ?? 'unknown',
    width: stream.width ?? 0,
    height: stream.height ?? 0,
    fps: rate(stream.avg_frame_rate) ?? rate(stream.r_frame_rate) ?? 0,
    attachedPic: isAttachedPic(stream),
    rotation: rotationOf(stream),
  };
}

/** Clockwise display rotation from the `rotate` tag or the display matrix (which counts counter-clockwise). */
function rotationOf(stream: FfprobeStream): number {
  const tag = stream.tags?.rotate;
  const matrix = stream.side_data_list?.find((side) => side.rotation !== undefined)?.rotation;
  const degrees = tag !== undefined && Number.isFinite(Number(tag)) ? Number(tag) : matrix !== undefined ? -matrix : 0;
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

function isAttachedPic(stream: FfprobeStream): boolean {
  return stream.disposition?.attached_pic === 1;
}

/** The container's duration, else the longest stream's, else 0. */
function duration(formatDuration: string | number | undefined, streams: FfprobeStream[]): number {
  const fromFormat = toNumber(formatDuration);
  if (fromFormat !== undefined) return fromFormat;
  const fromStreams = streams.map((s) => toNumber(s.duration) ?? 0);
  return Math.max(0, ...fromStreams);
}

function toNumber(value: string | number | undefined): number | undefined {
  const n = typeof value === 'number' ? value : value === undefined ? NaN : Number.parseFloat(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** `"30000/1001"` → 29.97; `"0/0"` → undefined. */
function rate(value: string | undefined): number | undefined {
  const [num, den] = (value ?? '').split('/').map(Number);
  return num !== undefined && den !== undefined && num > 0 && den > 0 ? num / den : undefined;
}
