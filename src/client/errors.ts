import type { ErrorBody } from './types.js';

/** The service answered with an error status; carries the API's error body (`code`, `message`, `details`). */
export class VirtualAnchorApiError extends Error {
  override readonly name = 'VirtualAnchorApiError';
  /** The error's stable code, e.g. `validation_failed`, `not_found` (`http_<status>` when the body had none). */
  readonly code: string;
  /** Field problems of a 400 (`body.audioUrl`, `query.perPage`, …); empty otherwise. */
  readonly details: { field: string; message: string }[];

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The error body as answered, when it was one. */
    readonly body: ErrorBody | undefined,
    /** The `Retry-After` header in seconds (429), when given. */
    readonly retryAfterSec?: number,
  ) {
    super(body?.error.message ?? `the service answered ${status}`);
    this.code = body?.error.code ?? `http_${status}`;
    this.details = body?.error.details ?? [];
  }

  /** Whether retrying later may succeed: 429 and 5xx. */
  get transient(): boolean {
    return this.status === 429 || this.status >= 500;
  }
}

/** The service could not be reached (connection refused, DNS, CORS, offline); `cause` is fetch's error. */
export class VirtualAnchorNetworkError extends Error {
  override readonly name = 'VirtualAnchorNetworkError';
  readonly transient = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Reads an error body when the answer is one: `{ error: { code: string, message: string, details? } }`. */
export function asErrorBody(value: unknown): ErrorBody | undefined {
  const error = (value as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return undefined;
  const details = Array.isArray(error.details)
    ? error.details.filter(
        (d): d is { field: string; message: string } =>
          typeof d === 'object' && d !== null && typeof d.field === 'string' && typeof d.message === 'string',
      )
    : undefined;
  return { error: { code: error.code, message: error.message, ...(details ? { details } : {}) } };
}
