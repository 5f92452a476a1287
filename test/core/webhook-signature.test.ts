/**
 * The webhook signatures interoperate with the Standard Webhooks reference library (`standardwebhooks`, by the
 * spec's authors): what the service signs, the library verifies, and what the library signs, `verifyWebhook`
 * accepts; tampering, an old timestamp and a wrong secret are refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError, signWebhook, verifyWebhook } from '../../src/core/webhooks/signature.js';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({ type: 'avatarVideo.completed', data: { uid: 'u1', status: 'completed', path: 'https://x/é' } });

describe('webhook signatures (Standard Webhooks)', () => {
  it('the reference library verifies what the service signs', () => {
    const headers = signWebhook(secret, 'msg_u1', body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('verifyWebhook accepts what the reference library signs, with a fetch-style or a Node-style header map', () => {
    const timestamp = new Date();
    const signature = new Webhook(secret).sign('msg_u2', timestamp, body);
    const headers = { 'webhook-id': 'msg_u2', 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': signature };
    assert.deepEqual(verifyWebhook(secret, headers, body), JSON.parse(body));
    assert.deepEqual(verifyWebhook(secret, new Headers(headers), Buffer.from(body)), JSON.parse(body));
  });

  it('accepts the secret with or without its whsec_ prefix, and refuses one under 16 bytes', () => {
    const bare = secret.slice('whsec_'.length);
    const headers = signWebhook(bare, 'msg_u4', body);
    assert.deepEqual(headers, signWebhook(secret, 'msg_u4', body, Number(headers['webhook-timestamp'])));
    assert.deepEqual(verifyWebhook(secret, headers, body), JSON.parse(body));
    assert.deepEqual(new Webhook(bare).verify(body, headers), JSON.parse(body));
    assert.throws(() => signWebhook(`whsec_${randomBytes(15).toString('base64')}`, 'msg_u4', body), { reason: 'bad_secret' });
  });

  it('refuses a changed body, a wrong secret and a stale timestamp, as the reference library does', () => {
    const headers = signWebhook(secret, 'msg_u3', body);
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    const stale = signWebhook(secret, 'msg_u3', body, Math.floor(Date.now() / 1000) - 600);
    for (const [what, h, b, s] of [
      ['changed body', headers, `${body} `, secret],
      ['wrong secret', headers, body, other],
      ['stale timestamp', stale, body, secret],
    ] as const) {
      assert.throws(() => verifyWebhook(s, h, b), WebhookVerificationError, what);
      assert.throws(() => new Webhook(s).verify(b, h), Error, `reference library: ${what}`);
    }
  });
});
