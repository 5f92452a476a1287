/**
 * Quick checks of a clip at a video avatar's creation, before it is accepted (the preparation then decodes all of
 * it): its length from its video packets' timestamps (demuxed, not decoded: a second or so for minutes of 1080p), and
 * one frame, upright at the size the clip is kept at, as a PNG for the face detector.
 */
import type { MediaBinaries } from '../media/binaries.js';
import { untrustedFileInput } from '../media/process.js';
import { runMedia } from '../media/run-media.js';
import type { ClipGeometry } from './clip-probe.js';
import { clipFilters } from './decode-clip.js';

/**
 * The clip's length in seconds from its video packets: from the first packet's time to the last one's end. Packets
 * are what a decoder reads, so a header cannot stretch or shorten it; the preparation counts decoded frames.
 */
export async function packetDurationSec(path: string, binaries: MediaBinaries, signal?: AbortSignal): Promise<number> {
  const stdout = await runMedia(
    'ffprobe',
    binaries.ffprobePath,
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,duration_time', '-of', 'csv=p=0', ...untrustedFileInput(path)],
    { timeoutMs: 60_000, signal, redact: path, maxOutputChars: 64 << 20 },
  );
  let first = Infinity;
  let last = -Infinity;
  for (const line of stdout.split('\n')) {
    const [pts, duration] = line.split(',').map(Number);
    if (pts === undefined || !Number.isFinite(pts)) continue;
    first = Math.min(first, pts);
    last = Math.max(last, pts + (duration !== undefined && Number.isFinite(duration) ? duration : 0));
  }
  return Number.isFinite(first) && last > first ? last - first : 0;
}

/** Writes the clip's frame at `atSec` (upright, constant rate, at `geometry`'s size) to `outputPath` as a PNG. */
export async function writeClipStill(path: string, atSec: number, geometry: ClipGeometry, outputPath: string, binaries: MediaBinaries, signal?: AbortSignal): Promise<void> {
  await runMedia(
    'ffmpeg',
    binaries.ffmpegPath,
    ['-nostdin', '-hide_banner', '-loglevel', 'error', '-ss', atSec.toFixed(3), ...untrustedFileInput(path), '-map', '0:v:0', '-vf', clipFilters({ geometry }), '-frames:v', '1', '-f', 'image2', '-c:v', 'png', '-y', `file:${outputPath}`],
    { timeoutMs: 60_000, signal, redact: path },
  );
}
