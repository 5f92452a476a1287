import type { MediaProbe } from '../../inference/media/index.js';
import { InputError } from './errors.js';

/** What an input must be. */
export interface MediaRules {
  kind: 'audio' | 'image';
  /** Accepted containers as decided by probing (`mp3`, `wav`, `mp4`, `mov`, `other`); any when absent. */
  allowedContainers?: readonly string[];
  /** Longest accepted duration in seconds (audio). */
  maxDurationSec?: number;
}

/** Codecs ffprobe reports for still images. */
const IMAGE_CODECS = new Set(['png', 'apng', 'mjpeg', 'jpegls', 'jpeg2000', 'webp', 'bmp', 'gif', 'tiff']);

/**
 * Checks a probed file against the rules.
 *
 * @throws {InputError} `not_audio` (no audio stream; a video with sound is fine), `not_image` (not exactly one
 *   video stream of an image codec, or sound), `unsupported_format` (container not allowed) or `too_long`.
 */
export function checkMedia(probe: MediaProbe, rules: MediaRules): void {
  if (rules.kind === 'audio') checkAudio(probe, rules);
  else checkImage(probe);
  if (rules.allowedContainers && !rules.allowedContainers.includes(probe.container)) {
    const seen = probe.container === 'other' ? (probe.formatNames[0] ?? 'unknown') : probe.container;
    throw new InputError(
      'unsupported_format',
      `unsupported file type ${seen}; accepted: ${rules.allowedContainers.join(', ')}`,
    );
  }
}

function checkAudio(probe: MediaProbe, rules: MediaRules): void {
  if (!probe.audio) throw new InputError('not_audio', 'the file has no audio stream');
  if (!(probe.durationSec > 0)) throw new InputError('not_audio', 'the duration of the audio could not be determined');
  if (rules.maxDurationSec !== undefined && probe.durationSec > rules.maxDurationSec) {
    throw new InputError(
      'too_long',
      `the audio lasts ${probe.durationSec.toFixed(1)} s; at most ${rules.maxDurationSec} s is accepted`,
    );
  }
}

function checkImage(probe: MediaProbe): void {
  const video = probe.video;
  if (probe.streamCounts.video !== 1 || probe.streamCounts.audio !== 0 || !video || !IMAGE_CODECS.has(video.codec)) {
    throw new InputError('not_image', 'the file is not a single still image (png, jpeg, webp, bmp or gif)');
  }
}
