/**
 * Media I/O on top of ffmpeg/ffprobe. The rest of the package goes through this module only: it is the one place
 * that knows how the binaries are found and invoked.
 */
export { resolveMediaBinaries } from './binaries.js';
export type { MediaBinaries, MediaBinarySource, ResolveMediaBinariesOptions } from './binaries.js';
export { classifyContainer } from './container.js';
export type { ContainerEvidence, MediaContainer } from './container.js';
export { decodeAudio, decodeAudioAs } from './decode.js';
export type { DecodeOptions, PcmFormat } from './decode.js';
export { encodeAudio } from './encode-audio.js';
export type { EncodeAudioOptions } from './encode-audio.js';
export { SAMPLE_CLOCK_FILTER, decodedDurationCap, decodedDurationTrim } from './duration-cap.js';
export { MediaBinaryError, MediaProbeError, MediaProcessError } from './errors.js';
export { MAX_DECODED_FRAME_PIXELS, frameTooLargeMessage, refusedFrameSize } from './frame-limit.js';
export type { MediaTool } from './errors.js';
export { measureAudioDuration } from './measure-duration.js';
export type { MeasureDurationOptions } from './measure-duration.js';
export { probeMedia } from './probe.js';
export type { MediaProbe, ProbedAudio, ProbedVideo, ProbeOptions } from './probe.js';
export { SAFE_DEMUXERS, spawnMedia, untrustedFileInput } from './process.js';
export type { MediaProcess, SpawnMediaOptions } from './process.js';
