import { VirtualAnchorApiError, VirtualAnchorNetworkError, asErrorBody } from './errors.js';

/** Settings shared by every request of a client. */
export interface TransportSettings {
  /** Where the API is mounted, e.g. `https://media.example.com/api`; `''` for the page's own origin. */
  baseUrl: string;
  /** The API key, sent as the `key` header. */
  apiKey: string;
  /** The fetch to use. Default: the global `fetch`. */
  fetch: typeof fetch;
}

/** One request: method, path (with query), optional JSON or form body, optional abort signal. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal;
  /** Extra request headers (e.g. `idempotency-key`). */
  headers?: Record<string, string>;
}

/** Parses a response body as JSON when it is JSON, else `undefined`. */
function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Turns a non-2xx answer into a {@link VirtualAnchorApiError} carrying the error body. */
export function apiError(status: number, bodyText: string, retryAfter: string | null): VirtualAnchorApiError {
  const seconds = retryAfter === null ? undefined : Number(retryAfter);
  return new VirtualAnchorApiError(status, asErrorBody(parseBody(bodyText)), Number.isFinite(seconds) ? seconds : undefined);
}

/** Sends one request and returns its JSON answer; throws the client's typed errors. */
export async function send<T>(settings: TransportSettings, spec: RequestSpec): Promise<T> {
  const headers: Record<string, string> = { ...spec.headers, key: settings.apiKey, accept: 'application/json' };
  if (spec.json !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    const init = {
      method: spec.method,
      headers,
      body: spec.json !== undefined ? JSON.stringify(spec.json) : spec.form,
      // Job states change: never answer from a browser cache (Node's fetch types lack `cache`).
      cache: 'no-store',
      signal: spec.signal,
    };
    response = await settings.fetch(`${settings.baseUrl}${spec.path}`, init as RequestInit);
  } catch (error) {
    if (spec.signal?.aborted) throw spec.signal.reason;
    throw new VirtualAnchorNetworkError(`the service at ${settings.baseUrl || 'this origin'} could not be reached`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) throw apiError(response.status, text, response.headers.get('retry-after'));
  return parseBody(text) as T;
}

/** The parts of a browser XMLHttpRequest the upload with progress uses. */
interface Xhr {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  getResponseHeader(name: string): string | null;
  send(body: FormData): void;
  abort(): void;
  readonly status: number;
  readonly responseText: string;
  readonly upload: { addEventListener(type: 'progress', listener: (event: { lengthComputable: boolean; loaded: number; total: number }) => void): void };
  addEventListener(type: 'load' | 'error' | 'abort', listener: () => void): void;
}

/**
 * POSTs a form and reports upload progress from 0 to 1. Browsers only (fetch cannot report upload progress):
 * uses XMLHttpRequest, and falls back to {@link send} where there is none.
 */
export function sendWithProgress<T>(settings: TransportSettings, spec: RequestSpec & { form: FormData }, onProgress: (fraction: number) => void): Promise<T> {
  const XhrClass = (globalThis as { XMLHttpRequest?: new () => Xhr }).XMLHttpRequest;
  if (!XhrClass) return send<T>(settings, spec);
  return new Promise<T>((resolve, reject) => {
    const xhr = new XhrClass();
    const abort = () => xhr.abort();
    spec.signal?.addEventListener('abort', abort, { once: true });
    const done = () => spec.signal?.removeEventListener('abort', abort);
    xhr.open(spec.method, `${settings.baseUrl}${spec.path}`);
    xhr.setRequestHeader('key', settings.apiKey);
    xhr.setRequestHeader('accept', 'application/json');
    for (const [name, value] of Object.entries(spec.headers ?? {})) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      done();
      if (xhr.status >= 200 && xhr.status < 300) resolve(parseBody(xhr.responseText) as T);
      else reject(apiError(xhr.status, xhr.responseText, xhr.getResponseHeader('retry-after')));
    });
    xhr.addEventListener('error', () => {
      done();
      reject(new VirtualAnchorNetworkError('the upload was interrupted'));
    });
    xhr.addEventListener('abort', () => {
      done();
      reject(spec.signal?.reason ?? new VirtualAnchorNetworkError('the upload was aborted'));
    });
    xhr.send(spec.form);
  });
}
