import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { BlobRef } from '../../domain/job.js';
import { BlobTooLargeError, type BlobMeta, type BlobStore } from '../../storage/blob-store.js';
import {
  ForbiddenAddressError,
  guardedLookup,
  isForbiddenAddress,
  type AddressPolicy,
  type HostResolver,
} from './address-guard.js';
import { InputError } from './errors.js';
import { cleanMediaType } from './media-type.js';
import { tooLargeText } from './limit-text.js';

/** Options of {@link safeFetch}. */
export interface SafeFetchOptions {
  /** Largest accepted body in bytes; more → `InputError('too_large')`, nothing stored. */
  maxBytes: number;
  /** The option that sets `maxBytes`, named in the `too_large` message. */
  maxBytesOption?: string;
  /** Metadata of the new blob; `contentType` defaults to the response's media type. */
  meta: Omit<BlobMeta, 'contentType'> & { contentType?: string };
  /** Deadline for the whole download, all redirects and the body included (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Lets URLs reach loopback/private/link-local addresses (tests, development). Default false. */
  allowPrivateAddresses?: boolean;
  /**
   * Replaces the address check (default {@link isForbiddenAddress}), e.g. to open one internal range only.
   * Ignored when `allowPrivateAddresses` is true.
   */
  isForbidden?: AddressPolicy;
  /**
   * Resolves host names (default `dns.lookup`, the system resolver); every address it answers passes the address
   * check before anything connects. Ignored when `allowPrivateAddresses` is true.
   */
  resolveHost?: HostResolver;
  /** Cancels the download; the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Downloads an http(s) URL into a new blob, defending the service against its URL: only http and https, redirects
 * followed by hand (each hop re-checked), every connection made to an address checked as public (unless
 * `allowPrivateAddresses`), a size cap enforced on the declared length and on the bytes, and one deadline.
 *
 * @throws {InputError} `bad_url`, `forbidden_address`, `unreachable` (network error, non-2xx, too many redirects),
 *   `timeout` or `too_large`. Store failures other than the size cap are rethrown as they are.
 */
export async function safeFetch(url: string, blobs: BlobStore, options: SafeFetchOptions): Promise<BlobRef> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  const maxRedirects = options.maxRedirects ?? 5;
  const policy: AddressPolicy | undefined = options.allowPrivateAddresses
    ? undefined
    : (options.isForbidden ?? isForbiddenAddress);
  let target = parseHttpUrl(url);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await get(target, signal, policy, options.resolveHost);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        response.resume();
        if (redirects >= maxRedirects) throw new InputError('unreachable', `more than ${maxRedirects} redirects`);
        const location = response.headers.location;
        if (!location) throw new InputError('unreachable', `HTTP ${status} redirect without a Location header`);
        target = parseHttpUrl(location, target);
        continue;
      }
      if (status < 200 || status > 299) {
        response.resume();
        throw new InputError('unreachable', `the server answered HTTP ${status} for ${target.host}`);
      }
      return await store(response, blobs, options);
    }
  } catch (error) {
    throw translate(error, deadline, options.signal, target, options.maxBytesOption);
  }
}

/** Parses an absolute http(s) URL (or a Location relative to `base`); anything else is `bad_url`. */
function parseHttpUrl(value: string, base?: URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(value, base);
  } catch {
    throw new InputError('bad_url', base ? 'a redirect pointed to an invalid URL' : 'not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new InputError('bad_url', `only http and https URLs can be fetched, not ${parsed.protocol.slice(0, -1)}`);
  }
  return parsed;
}

/** One GET; `policy` undefined means every address is allowed. */
function get(
  url: URL,
  signal: AbortSignal,
  policy: AddressPolicy | undefined,
  resolveHost: HostResolver | undefined,
): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  // net.connect skips `lookup` for IP literals, so those are checked here.
  if (policy && isIP(host) !== 0 && policy(host)) return Promise.reject(new ForbiddenAddressError(host, host));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: 'GET',
      signal,
      agent: false,
      ...(policy ? { lookup: guardedLookup(policy, resolveHost) } : {}),
      headers: { 'accept-encoding': 'identity', 'user-agent': 'virtual-anchor' },
    });
    request.once('error', (error) => reject(error instanceof ForbiddenAddressError ? error : new NetworkFailure(error)));
    request.once('response', (response) => {
      // Belt and braces: whatever resolved the name, the socket's peer must pass the policy.
      const peer = response.socket.remoteAddress;
      if (policy && peer !== undefined && policy(peer)) {
        response.destroy();
        return reject(new ForbiddenAddressError(host, peer));
      }
      resolve(response);
    });
    request.end();
  });
}

async function store(response: IncomingMessage, blobs: BlobStore, options: SafeFetchOptions): Promise<BlobRef> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    response.destroy();
    throw new InputError('too_large', tooLargeText('the file', declared, options.maxBytes, options.maxBytesOption));
  }
  const contentType = options.meta.contentType ?? cleanMediaType(response.headers['content-type']);
  const meta: BlobMeta = { ...options.meta, contentType };
  // A reset before the store attaches its listeners must not crash the process; put still sees `errored`.
  response.on('error', () => undefined);
  try {
    return await blobs.put(response, meta, { maxBytes: options.maxBytes });
  } catch (error) {
    // The connection broke during the body: a network problem, not a store problem.
    if (response.errored && !(error instanceof BlobTooLargeError)) throw new NetworkFailure(response.errored);
    throw error;
  }
}

/** A connection-level failure (DNS, refused, reset, TLS), as opposed to a store failure. */
class NetworkFailure extends Error {
  constructor(readonly original: Error) {
    super(original.message, { cause: original });
  }
}

function translate(error: unknown, deadline: AbortSignal, callerSignal: AbortSignal | undefined, target: URL, maxBytesOption?: string): unknown {
  if (error instanceof InputError) return error;
  if (deadline.aborted) return new InputError('timeout', `downloading from ${target.host} took too long`, { cause: error });
  if (callerSignal?.aborted) return callerSignal.reason;
  if (error instanceof BlobTooLargeError) {
    return new InputError('too_large', tooLargeText('the file', undefined, error.limit, maxBytesOption), { cause: error });
  }
  if (error instanceof ForbiddenAddressError) {
    return new InputError('forbidden_address', `${target.host} is not a public address`, { cause: error });
  }
  if (error instanceof NetworkFailure) {
    const code = (error.original as NodeJS.ErrnoException).code ?? error.original.message;
    return new InputError('unreachable', `could not download from ${target.host} (${code})`, { cause: error.original });
  }
  return error;
}
