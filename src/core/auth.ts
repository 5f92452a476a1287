import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, UNAVAILABLE_RETRY_AFTER_S } from './errors.js';
import type { HeaderMap } from './http/types.js';
import type { Logger } from '../domain/logger.js';

/**
 * Decides whether an API key is valid. Return `true` to accept. A hook that throws or rejects (its database is down,
 * say) makes the request answer 503 `unavailable`, and the failure is logged: the key could not be checked, which
 * is not the same as a wrong key.
 */
export type AuthenticateFn = (key: string) => boolean | Promise<boolean>;

/** The identity of an accepted caller: an opaque owner id derived from the key (the key itself is never stored). */
export function ownerOf(key: string): string {
  return createHash('sha256').update(`virtual-anchor:${key}`).digest('hex').slice(0, 32);
}

/**
 * Reads the `key` header. Both the bare key and `Bearer <key>` are accepted
 * (the spec shows both forms). Returns `undefined` when absent or empty.
 */
export function readKey(headers: HeaderMap): string | undefined {
  const raw = headers['key'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  const bearer = /^bearer\s+(.+)$/i.exec(value);
  return (bearer ? bearer[1]! : value).trim() || undefined;
}

/** Compares a key with every configured key in constant time (no early exit on a match). */
export function makeKeyListAuthenticator(keys: readonly string[]): AuthenticateFn {
  const digests = keys.map((key) => createHash('sha256').update(key).digest());
  return (candidate) => {
    const digest = createHash('sha256').update(candidate).digest();
    let ok = false;
    for (const known of digests) ok = timingSafeEqual(known, digest) || ok;
    return ok;
  };
}

/** Accepted keys' owner ids, so that a key's second request hashes it once (for the check), not twice. */
const OWNERS = new Map<string, string>();
/** Keys remembered in {@link OWNERS} at most; the map starts over when full (hosts have a handful of keys). */
const MAX_REMEMBERED_OWNERS = 1024;

/** {@link ownerOf} of a key that the `authenticate` hook accepted, remembered. */
function ownerOfAccepted(key: string): string {
  let owner = OWNERS.get(key);
  if (owner === undefined) {
    if (OWNERS.size >= MAX_REMEMBERED_OWNERS) OWNERS.clear();
    owner = ownerOf(key);
    OWNERS.set(key, owner);
  }
  return owner;
}

/**
 * Checks the request's key; throws a 403 {@link ApiError} when it is missing or wrong, and a 503 `unavailable`
 * (logged at error level) when the `authenticate` hook throws or rejects. Returns the owner id: at once (no
 * promise) when the hook answers at once, as the key-list check does.
 */
export function authenticateRequest(headers: HeaderMap, authenticate: AuthenticateFn, logger: Logger): string | Promise<string> {
  const key = readKey(headers);
  if (!key) throw new ApiError(403, 'forbidden', 'missing API key: send it in the `key` header');
  let answer: boolean | Promise<boolean>;
  try {
    answer = authenticate(key);
  } catch (error) {
    throw hookFailed(error, logger);
  }
  if (!isPromiseLike(answer)) return acceptedOwner(key, answer);
  return Promise.resolve(answer).then(
    (accepted) => acceptedOwner(key, accepted),
    (error: unknown) => {
      throw hookFailed(error, logger);
    },
  );
}

function acceptedOwner(key: string, accepted: unknown): string {
  if (!accepted) throw new ApiError(403, 'forbidden', 'invalid API key');
  return ownerOfAccepted(key);
}

function hookFailed(error: unknown, logger: Logger): ApiError {
  logger.error('the authenticate hook failed; answering 503', { error: String((error as Error | undefined)?.stack ?? error) });
  return new ApiError(503, 'unavailable', 'the API key could not be checked; retry later', undefined, { 'retry-after': UNAVAILABLE_RETRY_AFTER_S });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
