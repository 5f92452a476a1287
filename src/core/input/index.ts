/**
 * Input handling: turning submitted URLs and upload bodies into local, checked media files.
 * Errors are {@link ClientInputError}s carrying a stable `code` and the HTTP status to answer.
 */
export { ForbiddenAddressError, guardedLookup, isForbiddenAddress } from './address-guard.js';
export type { AddressPolicy, HostResolver } from './address-guard.js';
export { ClientInputError, INPUT_ERROR_CODES, InputError, UPLOAD_ERROR_CODES, UploadError } from './errors.js';
export type { InputErrorCode, UploadErrorCode } from './errors.js';
export { checkMedia } from './media-rules.js';
export type { MediaRules } from './media-rules.js';
export { receiveUpload } from './multipart.js';
export type { ReceivedUpload, ReceiveUploadOptions, UploadHeaders } from './multipart.js';
export { InputResolver } from './resolve-input.js';
export type { InputResolverOptions, ResolvedMedia, ResolveOptions } from './resolve-input.js';
export { safeFetch } from './safe-fetch.js';
export type { SafeFetchOptions } from './safe-fetch.js';
export { parseUploadRef } from './upload-ref.js';
export type { UploadRef } from './upload-ref.js';
