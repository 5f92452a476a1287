/** One field-level problem in a 400 response. */
export interface FieldIssue {
  /** Dotted location of the field, e.g. `body.audioUrl` or `query.perPage`. */
  field: string;
  /** What is wrong with it. */
  message: string;
}

/**
 * The JSON body of every error response:
 * `{ "error": { "code": "validation_failed", "message": "...", "details": [...] } }`.
 */
export interface ErrorBody {
  error: {
    /** Stable, machine-readable code (see docs/errors.md). */
    code: string;
    /** Human-readable explanation. */
    message: string;
    /** Field-level details, present on validation errors. */
    details?: FieldIssue[];
  };
}

/** `retry-after` (seconds) of a 503 `unavailable` caused by a dependency: the job store or the `authenticate` hook. */
export const UNAVAILABLE_RETRY_AFTER_S = '1';

/** An error that becomes an HTTP response with a JSON {@link ErrorBody}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: FieldIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }

  static badRequest(code: string, message: string, details?: FieldIssue[]): ApiError {
    return new ApiError(400, code, message, details);
  }

  static notFound(what: string): ApiError {
    return new ApiError(404, 'not_found', `${what} not found`);
  }

  /** The 500 of a failure that is the service's fault (the cause is logged, never sent). */
  static internal(): ApiError {
    return new ApiError(500, 'internal_error', 'the service failed to handle this request');
  }
}
