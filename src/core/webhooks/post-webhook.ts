import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress } from '../input/address-guard.js';

/** Options of {@link postWebhook}. */
export interface PostWebhookOptions {
  /** Headers to send besides `content-type`. */
  headers: Record<string, string>;
  /** The whole attempt's deadline (connect, send, answer). */
  timeoutMs: number;
  /** Lets the URL reach loopback/private addresses (tests, development). */
  allowPrivateAddresses: boolean;
  /** Cancels the attempt (shutdown). */
  signal?: AbortSignal;
}

/**
 * POSTs a JSON body to a webhook URL and resolves with the answer's status (the answer's body is discarded).
 * The SSRF guard of inputs applies on every attempt: the host is resolved afresh and every address checked
 * (IP literals too) unless private addresses are allowed. Redirects are not followed (a 3xx is not a 2xx).
 * Rejects on a network error, a forbidden address or the deadline.
 */
export async function postWebhook(url: string, body: string, options: PostWebhookOptions): Promise<number> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
  if (!client) throw new Error(`a webhook URL must be http(s), not ${target.protocol}`);
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  const guard = options.allowPrivateAddresses ? undefined : isForbiddenAddress;
  if (guard && isIP(host) !== 0 && guard(host)) throw new ForbiddenAddressError(host, host);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  return new Promise<number>((resolve, reject) => {
    const request = client.request(target, {
      method: 'POST',
      signal,
      agent: false,
      ...(guard ? { lookup: guardedLookup(guard) } : {}),
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'virtual-anchor', ...options.headers },
    });
    request.once('error', (error) => reject(deadline.aborted ? new Error(`no answer within ${options.timeoutMs} ms`) : error));
    request.once('response', (response) => {
      const peer = response.socket.remoteAddress;
      if (guard && peer !== undefined && guard(peer)) {
        response.destroy();
        return reject(new ForbiddenAddressError(host, peer));
      }
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', reject);
    });
    request.end(body);
  });
}
