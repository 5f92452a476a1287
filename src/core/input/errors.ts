/**
 * A problem with what a client sent (a URL, a file, an upload body). `code` is stable and machine-readable;
 * `httpStatus` is what the core answers: 413 for `too_large`, 400 for everything else.
 */
export abstract class ClientInputError<Code extends string> extends Error {
  /** HTTP status the core maps this error to. */
  readonly httpStatus: 400 | 413;

  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.httpStatus = code === 'too_large' ? 413 : 400;
  }
}

/** Codes of {@link InputError}. */
export const INPUT_ERROR_CODES = [
  'bad_url',
  'forbidden_address',
  'unreachable',
  'timeout',
  'not_found',
  'too_large',
  'not_audio',
  'not_image',
  'not_video',
  'unsupported_format',
  'too_long',
] as const;
/** A stable, machine-readable reason an input URL was refused. */
export type InputErrorCode = (typeof INPUT_ERROR_CODES)[number];

/** A submitted input URL could not be turned into an acceptable local media file. */
export class InputError extends ClientInputError<InputErrorCode> {
  override readonly name = 'InputError';
}

/** Codes of {@link UploadError}. */
export const UPLOAD_ERROR_CODES = ['not_multipart', 'missing_file', 'too_many_files', 'too_large'] as const;
/** A stable, machine-readable reason an upload was refused. */
export type UploadErrorCode = (typeof UPLOAD_ERROR_CODES)[number];

/** A multipart upload body was not acceptable. */
export class UploadError extends ClientInputError<UploadErrorCode> {
  override readonly name = 'UploadError';
}
