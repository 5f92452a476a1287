import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the signed content is
 * `<webhook-id>.<webhook-timestamp>.<body>`, signed with HMAC-SHA256 under the secret's bytes (the base64 after
 * `whsec_`), sent as `webhook-signature: v1,<base64>` (several space-separated signatures may be sent while a
 * secret is rotated).
 *
 * The signature itself is computed by `standardwebhooks`, the spec authors' library. This module keeps what the
 * library does not offer: a checked secret format (at least 16 bytes), a receiver clock to check against, fetch-style
 * header maps, and a `reason` on every refusal.
 */

/** How far a `webhook-timestamp` may be from the receiver's clock: 5 minutes. */
export const WEBHOOK_TOLERANCE_S = 5 * 60;

/** Why a webhook did not verify. */
export type WebhookVerificationReason = 'bad_secret' | 'missing_headers' | 'bad_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'bad_signature';

/** Thrown by {@link verifyWebhook} (and by {@link signWebhook} for a malformed secret). */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** The headers of one signed webhook request. */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** The secret's key bytes: `whsec_<base64>` (the prefix is optional on input). */
export function webhookSecretBytes(secret: string): Buffer {
  const base64 = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : Buffer.alloc(0);
  if (bytes.length < 16) throw new WebhookVerificationError('bad_secret', 'the webhook secret must be `whsec_` followed by at least 16 bytes in base64');
  return bytes;
}

/** True when `secret` is a usable `whsec_<base64>` secret. */
export function isWebhookSecret(secret: string): boolean {
  try {
    webhookSecretBytes(secret);
    return secret.startsWith('whsec_');
  } catch {
    return false;
  }
}

/**
 * The library's signer for `secret`. The key bytes come from {@link webhookSecretBytes} (one place that decodes and
 * checks a secret, `whsec_` or not, the same way the options do) and are handed to the library as raw bytes.
 */
function signer(secret: string): Webhook {
  return new Webhook(webhookSecretBytes(secret), { format: 'raw' });
}

/**
 * Signs one delivery: the three headers to send with `body` (the exact bytes sent).
 * @param timestampS seconds since the epoch; default now.
 */
export function signWebhook(secret: string, id: string, body: string, timestampS: number = Math.floor(Date.now() / 1000)): WebhookHeaders {
  const timestamp = String(Math.floor(timestampS));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signer(secret).sign(id, new Date(Number(timestamp) * 1000), body),
  };
}

/** Request headers as Node, Express, Koa or fetch give them. */
export type IncomingHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: IncomingHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a received webhook: its signature (constant-time compare, any of the `v1` signatures may match) and
 * that its timestamp is within {@link WEBHOOK_TOLERANCE_S} of now. Pass the raw body exactly as received.
 * Returns the parsed payload.
 * @throws {WebhookVerificationError} with a `reason` when it does not verify.
 */
export function verifyWebhook<T = unknown>(secret: string, headers: IncomingHeaders, body: string | Buffer, nowS: number = Date.now() / 1000): T {
  const webhook = signer(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('bad_timestamp', 'webhook-timestamp must be whole seconds');
  const age = nowS - Number(timestamp);
  if (age > WEBHOOK_TOLERANCE_S) throw new WebhookVerificationError('timestamp_too_old', 'the webhook timestamp is too old');
  if (age < -WEBHOOK_TOLERANCE_S) throw new WebhookVerificationError('timestamp_too_new', 'the webhook timestamp is in the future');
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = Buffer.from(webhook.sign(id, new Date(Number(timestamp) * 1000), text).slice('v1,'.length), 'base64');
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('bad_signature', 'no webhook signature matches');
  return JSON.parse(text) as T;
}
