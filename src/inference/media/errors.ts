/** Which media tool an error is about. */
export type MediaTool = 'ffmpeg' | 'ffprobe';

/** No usable ffmpeg/ffprobe binary could be found (or an explicitly named one is not executable). */
export class MediaBinaryError extends Error {
  constructor(
    readonly tool: MediaTool,
    message: string,
  ) {
    super(message);
    this.name = 'MediaBinaryError';
  }
}

/** ffmpeg or ffprobe failed: did not start, exited non-zero, was killed, or timed out. */
export class MediaProcessError extends Error {
  constructor(
    readonly tool: MediaTool,
    message: string,
    /** The last lines ffmpeg/ffprobe wrote to stderr (may be empty). */
    readonly stderrTail: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MediaProcessError';
  }
}

/** ffprobe could not read the file as media, or found no audio/video stream in it. */
export class MediaProbeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaProbeError';
  }
}
