/**
 * What a video avatar's clip is, from ffprobe: its first real video stream's size as it is meant to be seen
 * (rotation metadata of phone clips applied), frame rate and header duration, and the frame size and rate the
 * clip is normalised to (see {@link normalisedGeometry}).
 */
import type { MediaBinaries } from '../media/binaries.js';
import { MediaProcessError } from '../media/errors.js';
import { frameTooLargeMessage, MAX_DECODED_FRAME_PIXELS, refusedFrameSize } from '../media/frame-limit.js';
import { probeMedia, type MediaProbe } from '../media/probe.js';
import { VideoAvatarError } from './errors.js';

/** The largest frame a clip is kept at: larger ones are scaled down to fit (either orientation). */
export const MAX_CLIP_LONG_SIDE = 1920;
export const MAX_CLIP_SHORT_SIDE = 1080;
/** The highest frame rate a clip is kept at: faster clips drop frames to at most this (60 → 30, 50 → 25). */
export const MAX_CLIP_FPS = 30;
/** The lowest frame rate of a video avatar (the lip-sync track's lowest). */
export const MIN_CLIP_FPS = 10;

/** A probed clip. */
export interface ClipProbe {
  codec: string;
  /** Clockwise rotation applied for display (0, 90, 180 or 270). */
  rotation: number;
  /** Size as displayed (rotation applied). */
  width: number;
  height: number;
  /** Average frame rate (0 when unknown). */
  fps: number;
  /** Duration the header claims (the decoded one counts). */
  headerDurationSec: number;
  hasAudio: boolean;
}

/** Container formats that hold a still picture (an image, even in a video stream, is not a clip). */
const STILL_FORMATS = /^(image2|png_pipe|jpeg_pipe|webp_pipe|bmp_pipe|tiff_pipe|gif|gif_pipe)$/;

/**
 * Probes the clip at `path`.
 * @throws VideoAvatarError `not_video` when it is not a readable file with a moving video stream (audio only, a
 *   still image, a corrupt file), or its frames have more than `MAX_DECODED_FRAME_PIXELS` (as the header says, or
 *   as ffprobe's decoder found them; every later decode refuses such frames too, see frame-limit.ts).
 */
export async function probeClip(path: string, binaries: MediaBinaries, signal?: AbortSignal): Promise<ClipProbe> {
  let probe: MediaProbe;
  try {
    probe = await probeMedia(path, binaries, { signal });
  } catch (error) {
    signal?.throwIfAborted();
    if (error instanceof MediaProcessError && error.cause !== undefined) throw error; // ffprobe did not start
    const refusedFrame = refusedFrameSize(error);
    if (refusedFrame) throw new VideoAvatarError('not_video', frameTooLargeMessage('the clip', refusedFrame.width, refusedFrame.height), { cause: error });
    throw new VideoAvatarError('not_video', 'the file is not a video that can be read: send a clip of the person (MP4, MOV, WebM or MKV)', { cause: error });
  }
  return clipOfProbe(probe);
}

/**
 * The clip that ffprobe's answer `probe` describes (from {@link probeClip}, or from a check that probed the file
 * already, as the input check of a `videoUrl` does: the clip is not probed twice).
 * @throws VideoAvatarError `not_video` when it has no moving video stream (audio only, a still image), or its frames
 *   have more than `MAX_DECODED_FRAME_PIXELS` as the header says.
 */
export function clipOfProbe(probe: MediaProbe): ClipProbe {
  const { video } = probe;
  if (!video || video.attachedPic || probe.formatNames.some((name) => STILL_FORMATS.test(name)) || !(video.width > 0 && video.height > 0)) {
    const what = probe.audio ? 'it has sound only' : 'it holds no moving picture';
    throw new VideoAvatarError('not_video', `the file is not a video: ${what}; send a clip of the person (MP4, MOV, WebM or MKV)`);
  }
  if (video.width * video.height > MAX_DECODED_FRAME_PIXELS) throw new VideoAvatarError('not_video', frameTooLargeMessage('the clip', video.width, video.height));
  const turned = video.rotation === 90 || video.rotation === 270;
  return {
    codec: video.codec,
    rotation: video.rotation,
    width: turned ? video.height : video.width,
    height: turned ? video.width : video.height,
    fps: video.fps,
    headerDurationSec: probe.durationSec,
    hasAudio: probe.audio !== undefined,
  };
}

/** The frame size and rate a clip is decoded at (see {@link normalisedGeometry}). */
export interface ClipGeometry {
  width: number;
  height: number;
  fps: number;
}

/**
 * The size and constant frame rate the clip is kept at: its displayed size scaled down to fit
 * {@link MAX_CLIP_LONG_SIDE}×{@link MAX_CLIP_SHORT_SIDE} (either orientation), sides even (H.264 4:2:0); its
 * average rate rounded, divided down to at most {@link MAX_CLIP_FPS} (a 60 fps phone clip is kept at 30), at least
 * {@link MIN_CLIP_FPS}; an unknown rate is taken as 25.
 */
export function normalisedGeometry(probe: Pick<ClipProbe, 'width' | 'height' | 'fps'>): ClipGeometry {
  const long = Math.max(probe.width, probe.height);
  const short = Math.min(probe.width, probe.height);
  const scale = Math.min(1, MAX_CLIP_LONG_SIDE / long, MAX_CLIP_SHORT_SIDE / short);
  const even = (side: number) => Math.max(2, 2 * Math.floor((side * scale) / 2 + 1e-6));
  const source = probe.fps > 0 ? probe.fps : 25;
  const fps = Math.max(MIN_CLIP_FPS, Math.round(source / Math.ceil(source / MAX_CLIP_FPS - 1e-6)));
  return { width: even(probe.width), height: even(probe.height), fps };
}
