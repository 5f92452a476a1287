import type { InputErrorCode, UploadErrorCode } from '../input/errors.js';
import { MAX_JSON_DEPTH } from '../http/read-json.js';
import { MAX_LANDMARK_SPREAD, MIN_FACE_HEIGHT_PX } from '../../domain/avatar/photo.js';
import { MAX_IMAGE_PIXELS } from '../../inference/image/image-header.js';

/** An error status of the API: what it means and the `error.code` values it carries. */
export interface ErrorStatus {
  description: string;
  /** Each `error.code` this status carries → when it is answered (one row of docs/errors.md each). */
  codes: Readonly<Record<string, string>>;
  /** Headers the answer carries (lower-case name → description). */
  headers?: Record<string, string>;
}

const megapixels = MAX_IMAGE_PIXELS / 1_000_000;

/**
 * The 400 codes of input URLs and uploads (`too_large` is 413). Typed over both code lists, so a code added to
 * `INPUT_ERROR_CODES` or `UPLOAD_ERROR_CODES` does not compile until it is described here.
 */
const INPUT_CODES: Record<Exclude<InputErrorCode | UploadErrorCode, 'too_large'>, string> = {
  bad_url: 'an input URL (`audioUrl`, `audioUri`, `backgroundUrl`, `imageUrl`) is not a valid http or https URL, or a redirect pointed to one',
  forbidden_address:
    'an input URL (or a `webhookUrl`) points at, or its host resolves to, a loopback, link-local, private, CGNAT or metadata address, also after redirects and through an IPv6 form carrying such an IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo, ISATAP); `allowPrivateUrls` lets inputs through',
  unreachable: 'the input URL cannot be fetched (a network error, an answer that is not 2xx, too many redirects), or a `webhookUrl` host does not resolve',
  timeout: 'downloading the input took longer than `limits.downloadTimeoutMs`, or decoding its audio to measure it took over 60 s',
  not_found: 'the input is an upload URL of another key, or an upload that expired',
  not_audio:
    'the input has no audio stream, or no audio could be decoded from it (decided by content, not file name); or it is a video whose frames are over 4096×2160 pixels (`MAX_DECODED_FRAME_PIXELS`: the file cannot be read within the decoders\' bound, see docs/faults.md; the message gives the size and the limit)',
  not_image: `a photo (\`POST /v2/avatar\`) or \`backgroundUrl\` that is not a single JPEG, PNG or WebP still image, or has more than ${megapixels} megapixels (\`MAX_IMAGE_PIXELS\`, read from its header the way the decoder reads it, see docs/faults.md; the message gives the size and the limit)`,
  not_video:
    '`POST /v2/avatar` with a clip (a multipart `file` that is not an image, or `videoUrl`) that is not a readable video: sound only, a still image, a corrupt file (decided by content), or frames over 4096×2160 pixels (`MAX_DECODED_FRAME_PIXELS`, enforced by the decoder, see docs/faults.md; the message gives the size and the limit)',
  unsupported_format: "a separation input whose container is not mp3, wav, mp4 or mov (decided by content, not file name)",
  too_long:
    "a video avatar's clip lasts longer than `limits.maxAvatarVideoSec` (300 s); or the audio lasts longer than its limit (`limits.maxAvatarAudioSec`, 5 minutes; `limits.maxSeparationSec`) **when decoded**: the header's duration is not trusted; up to 0.5 s over is accepted and cut to the limit. The message gives the decoded length (or \"more than\" the limit, when decoding stopped past it), the limit and the option that sets it",
  not_multipart: 'an upload body that is not well-formed `multipart/form-data`',
  missing_file: 'an upload without a non-empty file part named `file`',
  too_many_files: 'an upload with more than one file part',
};

/**
 * Every error status the service answers, with its codes and when each is answered: the OpenAPI document and the
 * table of docs/errors.md (`npm run docs:tables`) are written from this table. Add a row (or a code) here when a
 * handler gains a new error.
 */
export const ERROR_STATUSES: Record<number, ErrorStatus> = {
  400: {
    description:
      `Bad request: a malformed body or query (field details; also a JSON body nested deeper than ${MAX_JSON_DEPTH} levels), an input that is unreachable or not acceptable media, audio too long, a bad upload, or a portrait without a usable face`,
    codes: {
      validation_failed: `body or query does not match the schema (\`details\` names each field; unknown fields are rejected); also a JSON body whose arrays and objects nest deeper than ${MAX_JSON_DEPTH} levels (\`MAX_JSON_DEPTH\`; the detail names \`body\`)`,
      invalid_json: 'body is not JSON',
      unknown_avatar: "`avatarId` is not in the catalogue (or is another key's photo avatar)",
      webhooks_disabled: '`webhookUrl` given, but the service has no `webhooks.secret` (a secret with your own job store and no `backends.webhookOutbox` fails start-up), or the job kind sends none (a `jobKinds` kind without `api.webhook`)',
      invalid_idempotency_key: '`Idempotency-Key` is not 1–255 printable ASCII characters, or is sent twice',
      no_face: '`POST /v2/avatar`: no face was found in the photo (or in the frame of a clip looked at, a third of the way in)',
      too_short:
        '`POST /v2/avatar` with a clip: it lasts less than `limits.minAvatarVideoSec` (3 s) from its packets\' timestamps; the message gives its length and the minimum (its preparation counts decoded frames and may end the avatar in `error` with this code too)',
      face_too_small: `\`POST /v2/avatar\`: the largest face's box (brows to chin) is under ${MIN_FACE_HEIGHT_PX} px high and its landmarks are not sure: the built-in detector looks at such a face again, upscaled, and the two looks place its points more than ${MAX_LANDMARK_SPREAD * 100} % of the eye distance apart (or do not find it again); the message gives the face's size and asks for a face at least ${MIN_FACE_HEIGHT_PX} px high`,
      ...INPUT_CODES,
    },
  },
  403: {
    description: 'Forbidden: missing or invalid `key` header, a file link with a bad signature, or deleting a built-in avatar',
    codes: {
      forbidden: 'missing or wrong `key` (every route except the OpenAPI document, health, readiness, metrics and signed links)',
      invalid_signature: 'a signed link was altered: its id, expiry, signature or file name',
      built_in_avatar: '`DELETE /v2/avatar/:uid` of a built-in avatar',
    },
  },
  404: { description: 'Not found (or owned by another key)', codes: { not_found: 'unknown id, or a job, upload or photo avatar of another key' } },
  405: {
    description: 'The path exists but not with this method',
    codes: { method_not_allowed: 'known path, other method (`Allow` header lists the right one)' },
    headers: { allow: 'The methods this path accepts' },
  },
  409: {
    description:
      'Conflict: the job is already `completed` or `error` (cancel), or a request with the same Idempotency-Key is still in progress (retry after `retry-after`)',
    codes: {
      conflict:
        'cancel of a job already `completed`/`error`; or a request with the same `Idempotency-Key` is still being handled after a 10 s wait (`Retry-After: 1`)',
    },
    headers: { 'retry-after': 'Seconds to wait before retrying (Idempotency-Key in progress only)' },
  },
  410: {
    description: 'Gone: the link expired (fetch the resource again for a fresh one) or the file was deleted after its retention period',
    codes: { link_expired: 'signed link past its expiry (a GET of the job hands out a fresh one)', file_deleted: 'the file of a signed link was deleted by retention' },
  },
  413: {
    description: 'Too large: the JSON body, an upload or a downloaded input exceeds its limit',
    codes: {
      payload_too_large:
        'JSON body over `limits.maxJsonBytes` (sent with `Connection: close` when the body goes on more than 1 MiB past the limit); the message gives the declared size (or \"larger than\" the limit) and the limit',
      too_large:
        'an upload, a photo or a downloaded input over its limit (`limits.maxUploadBytes`, `limits.maxPhotoBytes`, `limits.maxDownloadBytes`); the message gives the size (or \"larger than\" the limit, when the bytes were cut off there), the limit and the option that sets it',
    },
  },
  422: {
    description: 'The Idempotency-Key was used before (same API key, last 24 h) with another request body or route',
    codes: { idempotency_key_reused: 'the `Idempotency-Key` was used (same API key, last 24 h) with another body, file or route' },
  },
  415: { description: 'The body is not `application/json`', codes: { unsupported_media_type: 'a POST body that is not `application/json`' } },
  416: {
    description: 'The requested byte range is outside the file',
    codes: { range_not_satisfiable: 'a Range outside the file' },
    headers: { 'content-range': '`bytes */<size>`' },
  },
  429: {
    description: 'Too many requests of this key are waiting: for a request slot, for their input files to be checked, or (`POST /v2/avatar`) for face detection',
    codes: {
      too_many_requests:
        'too many requests of one key waiting (`concurrency.maxQueuedRequestsPerKey`): for a request slot, or for their input files to be checked (keys take turns at the checks, see docs/faults.md; with 0, only a key that already has a check running or waiting); or too many of its photos waiting for face detection (`limits.maxQueuedPhotosPerKey`); `Retry-After` gives the seconds to wait',
    },
    headers: { 'retry-after': 'Seconds to wait before retrying' },
  },
  500: {
    description: 'The service failed to handle the request (logged)',
    codes: {
      internal_error:
        "the service failed (the log has the cause); also a file whose stream failed before its first byte. Once a file's bytes have started, a failure cuts the connection instead",
    },
  },
  503: {
    description: 'Unavailable: the service failed to start, (readiness) a store does not answer, or photo avatars are off (no face detector)',
    codes: {
      unavailable:
        'the job store (Redis) or the S3 blob store cannot be reached in time (`redisTimeouts`; S3: connect 5 s, idle 30 s, 3 attempts; also a credentials provider that fails while a link is signed), start-up failed (retried on the next request), or the `authenticate` hook threw or rejected; answered at once with `Retry-After: 1`; nothing of the request runs later; the log says why once. Also `POST /v2/avatar` when photo avatars are off (`backends.faceDetector: false`)',
    },
  },
};
