/**
 * A job's video with a video avatar: the prepared clip decoded from its first frame (scaled and cropped to the job's
 * frame size, as every avatar is framed), each frame's mouth drawn from the mouth track (video-frame-renderer), and
 * the frames piped into the H.264 encoder with the speech; where the speech outlasts the clip it plays again (the
 * prepared clip is a seamless loop; the start of each new pass is eased from the last frame shown: loop-join).
 * Streamed: a few frames are held at once, whatever the length.
 */
import type { VideoFace } from '../../domain/avatar/video-face.js';
import { RESTING_MOUTH, type MouthShape } from '../lipsync/mouth.js';
import type { MediaBinaries } from '../media/binaries.js';
import { openVideoEncoder, type VideoEncoderSettings } from '../media/encode-video.js';
import type { MediaSpawner } from '../media/media-spawner.js';
import { decodeClip, decodedFrame } from './decode-clip.js';
import { LoopJoinEase } from './loop-join.js';
import { VideoFrameRenderer, type MouthSource } from './video-frame-renderer.js';

/** A job's mouths: one per frame at the face's frame rate (the resting mouth past its end), and the frames to write. */
export interface VideoMouthTrack {
  mouths: readonly MouthShape[];
  total: number;
}

/**
 * The track now, or `track`, still being computed (the speech's analysis): the encoder and the decoder start, the
 * face is read and the first frame decoded meanwhile, and the drawing waits for it (a rejection fails the job).
 */
export type VideoMouthTrackSource = VideoMouthTrack | { track: PromiseLike<VideoMouthTrack> };

/** Options of {@link renderVideoAvatar}: a {@link VideoMouthTrackSource} and these. */
export type RenderVideoAvatarOptions = RenderVideoAvatarSettings & VideoMouthTrackSource;

/** The options of {@link renderVideoAvatar} besides the mouths. */
export interface RenderVideoAvatarSettings {
  face: VideoFace;
  /** The video's frame size (even sides; default the prepared clip's). */
  outputSize?: { width: number; height: number };
  /** The speech to mux, and at most how many seconds of it. */
  audioPath?: string;
  audioMaxSec?: number;
  outputPath: string;
  encoder?: VideoEncoderSettings;
  binaries: MediaBinaries;
  signal?: AbortSignal;
  /** Told each time `done` frames are in the encoder. */
  onFrame?: (done: number) => void;
  /** Told where each frame's mouth came from (tests, the bench). */
  onSource?: (frame: number, source: MouthSource) => void;
}

/**
 * Renders a job's video with a video avatar (see the module comment); the partial file is removed on failure. With
 * `spawner`, its ffmpeg processes (the decoder of each pass, the encoder) are started from the spawner's small process
 * instead of by forking the caller (see media-spawner.ts).
 */
export async function renderVideoAvatar(options: RenderVideoAvatarOptions, spawner?: MediaSpawner): Promise<void> {
  const { face, binaries, signal } = options;
  // The track still being computed: a failure before it is awaited (below) must not be an unhandled rejection.
  const pending = 'track' in options ? Promise.resolve(options.track) : undefined;
  pending?.catch(() => undefined);
  const first = await VideoFrameRenderer.create(face);
  const geometry = { width: first.data.width, height: first.data.height, fps: first.data.fps };
  const size = decodedFrame(geometry, options.outputSize);
  const renderer = options.outputSize ? new VideoFrameRenderer(first.data, first.entries, size.width, size.height, size.mapping) : first;
  const encoder = openVideoEncoder(
    {
      ...options.encoder,
      width: size.width,
      height: size.height,
      fps: geometry.fps,
      pixelFormat: 'yuv420p',
      audioPath: options.audioPath,
      audioMaxSec: options.audioMaxSec,
      outputPath: options.outputPath,
      signal,
    },
    binaries,
    spawner,
  );
  try {
    let done = 0;
    // Known once the first frame is decoded (the first pass decodes the whole clip until then; the excess is not read).
    let track: VideoMouthTrack | undefined = pending ? undefined : (options as VideoMouthTrack);
    const join = new LoopJoinEase();
    while (track === undefined || done < track.total) {
      const before = done;
      const maxFrames = track ? track.total - done : undefined;
      for await (const frame of decodeClip(face.clipPath, { geometry, outputSize: options.outputSize, normalised: true, maxFrames, signal }, binaries, spawner)) {
        track ??= await pending!;
        signal?.throwIfAborted();
        if (done >= track.total) {
          frame.release();
          break;
        }
        const { mouths, total } = track;
        if (before > 0) join.ease(frame.pixels, frame.index);
        // The pass's last frame, as decoded, when another pass follows.
        if (frame.index === renderer.frames - 1 && done + 1 < total) join.hold(frame.pixels);
        renderer.drawInto(frame.pixels, frame.index, mouths[done] ?? RESTING_MOUTH);
        options.onSource?.(done, renderer.lastSource);
        await encoder.write(frame.pixels, frame.release);
        done++;
        options.onFrame?.(done);
      }
      if (done === before) throw new Error('the prepared clip holds no frames');
    }
    await encoder.finish();
  } catch (error) {
    await encoder.abort();
    signal?.throwIfAborted();
    throw error;
  }
}
