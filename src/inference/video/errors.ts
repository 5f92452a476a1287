/**
 * Why a clip cannot become a video avatar. Each code is one of the API's 400 codes for `POST /v2/avatar` with a
 * video (docs/errors.md) and the message says what to change, so that a person can record the clip again.
 */
import { VIDEO_AVATAR_ERROR_CODES, type VideoAvatarErrorCode } from '../../domain/avatar/video-face.js';

export { VIDEO_AVATAR_ERROR_CODES, type VideoAvatarErrorCode };

/** A clip refused by the preparation of a video avatar (see {@link VIDEO_AVATAR_ERROR_CODES}). */
export class VideoAvatarError extends Error {
  constructor(
    readonly code: VideoAvatarErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'VideoAvatarError';
  }
}

/**
 * The {@link VideoAvatarError} an error stands for, also after it crossed a process boundary (where it lost its
 * class and kept its name, message and code); none for any other error.
 */
export function asVideoAvatarError(error: unknown): VideoAvatarError | undefined {
  if (error instanceof VideoAvatarError) return error;
  if (!(error instanceof Error) || error.name !== 'VideoAvatarError') return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !(VIDEO_AVATAR_ERROR_CODES as readonly string[]).includes(code)) return undefined;
  return new VideoAvatarError(code as VideoAvatarErrorCode, error.message, { cause: error });
}
