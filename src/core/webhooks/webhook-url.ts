import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError } from '../errors.js';
import { isForbiddenAddress } from '../input/address-guard.js';

/** Checks a creation's `webhookUrl`; throws a 400 {@link ApiError} when it cannot be accepted. */
export type WebhookUrlCheck = (url: string) => Promise<void>;

const field = 'body.webhookUrl';

/**
 * The creation-time check of `webhookUrl`: webhooks must be on (a signing secret and a store with an outbox),
 * and the host must pass the SSRF guard of inputs (every address it resolves to is public, unless
 * `allowPrivateAddresses`). The guard runs again on every delivery, with the name resolved afresh.
 */
export function webhookUrlCheck(settings: { enabled: boolean; allowPrivateAddresses: boolean }): WebhookUrlCheck {
  return async (url) => {
    if (!settings.enabled) {
      throw ApiError.badRequest('webhooks_disabled', 'this service has no webhook secret configured, so it does not send webhooks', [
        { field, message: 'webhooks are off on this service (option webhooks.secret); poll the job instead' },
      ]);
    }
    if (settings.allowPrivateAddresses) return;
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: string[];
    try {
      addresses = isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    } catch (error) {
      throw ApiError.badRequest('unreachable', `the webhook host ${host} does not resolve`, [
        { field, message: `could not resolve ${host} (${(error as NodeJS.ErrnoException).code ?? String(error)})` },
      ]);
    }
    const bad = addresses.find((address) => isForbiddenAddress(address));
    if (bad !== undefined) {
      throw ApiError.badRequest('forbidden_address', `${host} is not a public address`, [{ field, message: `${host} resolves to ${bad}, which is not a public address` }]);
    }
  };
}
