/**
 * The largest picture ffmpeg and ffprobe decode from an untrusted file: every video frame of a clip, wherever it is
 * in the stream, and any picture inside an audio file (cover art). The decoders enforce it themselves
 * (`-max_pixels`, checked when a frame's buffer is allocated, from the size the decoder itself parsed), so a header
 * that claims a small size cannot smuggle in large frames, and a resolution change in the middle of a stream is
 * caught too; a refused frame is never allocated. With a decoder's reference frames (16 at most, H.264's) and its
 * frame threads (capped at {@link UNTRUSTED_DECODER_THREADS}, each holds frames of its own), this bounds the memory
 * of one ffmpeg run whatever the file claims: about (16 + 4 + a few) × 13 MB ≈ 300 MB at the limit, in yuv420p.
 * Without it, a 198 KB H.264 clip of 8192 × 8192 frames took 765 MB to decode on two cores (more with more cores).
 */
import { MediaProcessError } from './errors.js';

/** At most 4096 × 2160 pixels a frame (DCI 4K): a phone's 4K clip fits, upright or on its side. */
export const MAX_DECODED_FRAME_PIXELS = 4096 * 2160;

/** Threads of one decoder of untrusted input: each frame thread holds frames of its own. */
export const UNTRUSTED_DECODER_THREADS = 4;

/** The ffmpeg/ffprobe input options that bound decoding (they go before `-i`). */
export function decodeBounds(): string[] {
  return ['-max_pixels', String(MAX_DECODED_FRAME_PIXELS), '-threads', String(UNTRUSTED_DECODER_THREADS)];
}

/**
 * The frame size a decoder refused for {@link MAX_DECODED_FRAME_PIXELS}, read from the stderr of the ffmpeg or
 * ffprobe run that failed with `error` (or with an error in its `cause` chain); none when it failed otherwise.
 */
export function refusedFrameSize(error: unknown): { width: number; height: number } | undefined {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    if (!(at instanceof MediaProcessError)) continue;
    const match = /Picture size (\d+)x(\d+) exceeds specified max pixel count/.exec(at.stderrTail);
    return match ? { width: Number(match[1]), height: Number(match[2]) } : undefined;
  }
  return undefined;
}

/** What to tell a person whose `what` (`the clip`) has frames of `width` × `height` pixels, over the limit. */
export function frameTooLargeMessage(what: string, width: number, height: number): string {
  return `${what}'s frames are ${width}×${height} pixels; at most ${(MAX_DECODED_FRAME_PIXELS / 1e6).toFixed(1)} megapixels (4096×2160, 4K) are decoded: send it at 4K or less`;
}
