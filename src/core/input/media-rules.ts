import type { MediaProbe } from '../../inference/media/index.js';
import { InputError } from './errors.js';
import { acceptedAtMost, formatSeconds } from './limit-text.js';

/** What an input must be. */
export interface MediaRules {
  /** `video`: a clip of a person (a moving picture; its length and face are checked by the video avatars). */
  kind: 'audio' | 'image' | 'video';
  /** Accepted containers as decided by probing (`mp3`, `wav`, `mp4`, `mov`, `other`); any when absent. */
  allowedContainers?: readonly string[];
  /**
   * Longest accepted duration in seconds (audio), checked against what the audio decodes to (see
   * {@link checkDecodedDuration}), never against what the file's header says.
   */
  maxDurationSec?: number;
  /** The option that sets `maxDurationSec` (e.g. `limits.maxAvatarAudioSec`), named in the `too_long` message. */
  maxDurationOption?: string;
}

/**
 * How far past `maxDurationSec` decoded audio may reach and still be accepted (then cut to the limit): decoders
 * emit whole frames, so a recording of exactly the limit can decode a few hundredths of a second longer (an AAC
 * frame at 8 kHz is 0.128 s).
 */
export const DURATION_TOLERANCE_SEC = 0.5;

/**
 * How much further than `maxDurationSec` + {@link DURATION_TOLERANCE_SEC} the check decodes: ffmpeg 6.1 and later
 * report a decoded duration short by up to one frame, so a decode stopped exactly at the threshold could not tell
 * "too long" from "just right". One second is more than any audio frame ffmpeg decodes at usual rates.
 */
const DECODE_MARGIN_SEC = 1;

/** How many seconds of audio to decode to check `maxDurationSec` (none without a limit: decode it all). */
export function decodeCapSec(rules: Pick<MediaRules, 'maxDurationSec'>): number | undefined {
  return rules.maxDurationSec === undefined ? undefined : rules.maxDurationSec + DURATION_TOLERANCE_SEC + DECODE_MARGIN_SEC;
}

/** Codecs ffprobe reports for still images. */
const IMAGE_CODECS = new Set(['png', 'apng', 'mjpeg', 'jpegls', 'jpeg2000', 'webp', 'bmp', 'gif', 'tiff']);

/**
 * Checks a probed file against the rules, except its duration: a header can lie about that, so durations are
 * checked once the audio has been decoded, by {@link checkDecodedDuration}.
 *
 * @throws {InputError} `not_audio` (no audio stream; a video with sound is fine), `not_image` (not exactly one
 *   video stream of an image codec, or sound), `not_video` (no moving picture) or `unsupported_format` (container not
 *   allowed).
 */
export function checkMedia(probe: MediaProbe, rules: MediaRules): void {
  if (rules.kind === 'audio') checkAudio(probe);
  else if (rules.kind === 'video') checkVideo(probe);
  else checkImage(probe);
  if (rules.allowedContainers && !rules.allowedContainers.includes(probe.container)) {
    const seen = probe.container === 'other' ? (probe.formatNames[0] ?? 'unknown') : probe.container;
    throw new InputError(
      'unsupported_format',
      `unsupported file type ${seen}; accepted: ${rules.allowedContainers.join(', ')}`,
    );
  }
}

function checkAudio(probe: MediaProbe): void {
  if (!probe.audio) throw new InputError('not_audio', 'the file has no audio stream');
}

/**
 * Checks the duration the audio decoded to (measured with a cap of {@link decodeCapSec}) and returns the duration
 * the job is to have: the decoded one, cut to the limit.
 *
 * @throws {InputError} `not_audio` when nothing decodes, `too_long` when the audio lasts longer than the limit
 *   (by more than {@link DURATION_TOLERANCE_SEC}).
 */
export function checkDecodedDuration(decodedSec: number, rules: Pick<MediaRules, 'maxDurationSec' | 'maxDurationOption'>): number {
  if (!(decodedSec > 0)) throw new InputError('not_audio', 'no audio could be decoded from the file');
  const limit = rules.maxDurationSec;
  if (limit === undefined) return decodedSec;
  if (decodedSec > limit + DURATION_TOLERANCE_SEC) {
    // Decoding stopped at the cap, a little past the limit: all that is known is that the audio is longer than the limit.
    const cap = decodeCapSec(rules) ?? Infinity;
    const lasts = decodedSec >= cap ? `more than ${formatSeconds(limit)}` : formatSeconds(decodedSec);
    throw new InputError('too_long', `the audio lasts ${lasts} when decoded; ${acceptedAtMost(formatSeconds(limit), rules.maxDurationOption)}`);
  }
  return Math.min(decodedSec, limit);
}

/** A moving picture: a video stream that is not cover art or a still image's codec (sound or none). */
function checkVideo(probe: MediaProbe): void {
  const video = probe.video;
  if (!video || video.attachedPic || IMAGE_CODECS.has(video.codec)) {
    throw new InputError('not_video', `the file is not a video: ${probe.audio ? 'it has sound only' : 'it holds no moving picture'}; send a clip of the person (MP4, MOV, WebM or MKV)`);
  }
}

function checkImage(probe: MediaProbe): void {
  const video = probe.video;
  if (probe.streamCounts.video !== 1 || probe.streamCounts.audio !== 0 || !video || !IMAGE_CODECS.has(video.codec)) {
    throw new InputError('not_image', 'the file is not a single still image (png, jpeg or webp)');
  }
}
