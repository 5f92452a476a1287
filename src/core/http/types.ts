import type { Readable } from 'node:stream';

/** Request headers with lower-case names, as Node delivers them. */
export type HeaderMap = Record<string, string | string[] | undefined>;

/**
 * A framework-neutral request: what an adapter hands to the core.
 * Adapters copy fields from Express/Koa; they add no logic.
 */
export interface CoreRequest {
  method: string;
  /** Path relative to where the framework mounted the middleware, without query string. */
  path: string;
  query: URLSearchParams;
  headers: HeaderMap;
  /** Absolute origin of the request, e.g. `http://localhost:3000` (used for links when no `publicUrl`). */
  origin: string;
  /** Path prefix under which the framework mounted the middleware (Express `req.baseUrl`), or `''`. */
  mountPath: string;
  /** The raw request body stream (unread unless a body parser ran before the middleware). */
  bodyStream: Readable;
  /** A body already parsed by a host body parser, when one ran. */
  parsedBody?: unknown;
  /**
   * Aborts when the client has gone (its connection closed before the answer; see `clientGoneSignal`): the
   * request's input checks still waiting for their turn are dropped, not run.
   */
  signal?: AbortSignal;
}

/** A framework-neutral response: what the core hands back to an adapter. */
export type CoreResponse =
  | { status: number; headers: Record<string, string>; kind: 'json'; body: unknown }
  | { status: number; headers: Record<string, string>; kind: 'stream'; body: Readable }
  | { status: number; headers: Record<string, string>; kind: 'empty' };

/** The core's request handler: `undefined` means "not a route of this middleware" (call `next()`). */
export type CoreHandler = (request: CoreRequest) => Promise<CoreResponse | undefined>;

/** Helper building a JSON response. */
/** A JSON body: anything serialisable, never a promise (an un-awaited view would be sent as `{}`). */
export type JsonBody<T> = T extends PromiseLike<unknown> ? never : T;

/** The type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function json<T>(status: number, body: JsonBody<T>, headers?: Record<string, string>): CoreResponse {
  return { status, headers: headers ? { 'content-type': JSON_CONTENT_TYPE, ...headers } : { 'content-type': JSON_CONTENT_TYPE }, kind: 'json', body };
}
