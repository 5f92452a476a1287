import { INPUT_ERROR_CODES, UPLOAD_ERROR_CODES } from '../input/errors.js';
import { MAX_JSON_DEPTH } from '../http/read-json.js';

/** An error status of the API: what it means and the `error.code` values it carries. */
export interface ErrorStatus {
  description: string;
  codes: readonly string[];
  /** Headers the answer carries (lower-case name → description). */
  headers?: Record<string, string>;
}

const inputCodes = INPUT_ERROR_CODES.filter((code) => code !== 'too_large');
const uploadCodes = UPLOAD_ERROR_CODES.filter((code) => code !== 'too_large');

/**
 * Every error status the service answers, with its codes: the OpenAPI document is written from this table.
 * Add a row (or a code) here when a handler gains a new error.
 */
export const ERROR_STATUSES: Record<number, ErrorStatus> = {
  400: {
    description:
      `Bad request: a malformed body or query (field details; also a JSON body nested deeper than ${MAX_JSON_DEPTH} levels), an input that is unreachable or not acceptable media, audio too long, a bad upload, or a portrait without a usable face`,
    codes: [
      'validation_failed',
      'invalid_json',
      'unknown_avatar',
      'webhooks_disabled',
      'invalid_idempotency_key',
      'no_face',
      'face_too_small',
      ...new Set([...inputCodes, ...uploadCodes]),
    ],
  },
  403: {
    description: 'Forbidden: missing or invalid `key` header, a file link with a bad signature, or deleting a built-in avatar',
    codes: ['forbidden', 'invalid_signature', 'built_in_avatar'],
  },
  404: { description: 'Not found (or owned by another key)', codes: ['not_found'] },
  405: {
    description: 'The path exists but not with this method',
    codes: ['method_not_allowed'],
    headers: { allow: 'The methods this path accepts' },
  },
  409: {
    description:
      'Conflict: the job is already `completed` or `error` (cancel), or a request with the same Idempotency-Key is still in progress (retry after `retry-after`)',
    codes: ['conflict'],
    headers: { 'retry-after': 'Seconds to wait before retrying (Idempotency-Key in progress only)' },
  },
  410: { description: 'Gone: the link expired (fetch the resource again for a fresh one) or the file was deleted after its retention period', codes: ['link_expired', 'file_deleted'] },
  413: { description: 'Too large: the JSON body, an upload or a downloaded input exceeds its limit', codes: ['payload_too_large', 'too_large'] },
  422: {
    description: 'The Idempotency-Key was used before (same API key, last 24 h) with another request body or route',
    codes: ['idempotency_key_reused'],
  },
  415: { description: 'The body is not `application/json`', codes: ['unsupported_media_type'] },
  416: {
    description: 'The requested byte range is outside the file',
    codes: ['range_not_satisfiable'],
    headers: { 'content-range': '`bytes */<size>`' },
  },
  429: {
    description: 'Too many requests of this key are waiting for a slot',
    codes: ['too_many_requests'],
    headers: { 'retry-after': 'Seconds to wait before retrying' },
  },
  500: { description: 'The service failed to handle the request (logged)', codes: ['internal_error'] },
  503: {
    description: 'Unavailable: the service failed to start, (readiness) a store does not answer, or photo avatars are off (no face detector)',
    codes: ['unavailable'],
  },
};
