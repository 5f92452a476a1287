import type { z } from 'zod';

/** A response body: a zod schema (JSON), or a raw JSON Schema for non-JSON bodies (files, metrics text). */
export type DocBody = { contentType: 'application/json'; schema: z.ZodType } | { contentType: string; schema: Record<string, unknown> };

/** One documented success response. */
export interface DocResponse {
  description: string;
  /** Omitted for empty bodies. */
  body?: DocBody;
  /** Response headers worth naming (lower-case name → description). */
  headers?: Record<string, string>;
}

/**
 * The documentation of one route: what the OpenAPI document says about it. The document is generated
 * from these (and the route's `access`, `family` and `jsonBody`), so a route cannot exist undocumented.
 */
export interface RouteDoc {
  /** One line, e.g. `Create an avatar video job`. */
  summary: string;
  description?: string;
  /** Group in the document, e.g. `Avatar videos`. */
  tag: string;
  /** Path parameters, by the names used in the route's pattern. */
  params?: z.ZodObject;
  /** Query parameters (the same schema the handler validates with). */
  query?: z.ZodObject;
  /** Request headers the route reads (e.g. `Idempotency-Key`). */
  headers?: z.ZodObject;
  /** Request body (JSON routes: the schema the handler validates with); several when the route takes several types. */
  body?: DocBody | DocBody[];
  /** Success responses by status. */
  responses: Record<number, DocResponse>;
  /**
   * Error statuses the handler itself can answer. The statuses of the request pipeline are added from
   * the route: 403 for `key` routes, 429 for limited families, 400/413/415 for JSON bodies, and 405,
   * 500 and 503 everywhere.
   */
  errors: number[];
}
