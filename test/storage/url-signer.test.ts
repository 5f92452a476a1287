import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { UrlSigner, loadOrCreateSecret } from '../../src/storage/url-signer.js';
import { tempDirs } from './temp-dir.js';

const freshDir = tempDirs('va-signer-');

const NOW = Date.UTC(2025, 5, 1);
const EXPIRES = NOW + 60_000;

/** `signature` with its first character replaced by another valid base64url character. */
function tamper(signature: string): string {
  return (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
}

describe('UrlSigner', () => {
  const signer = new UrlSigner(randomBytes(32));
  const { expires, signature } = signer.sign('blob-id-0001', EXPIRES);

  it('accepts its own signature until the expiry, as number or query string', () => {
    assert.equal(expires, EXPIRES);
    assert.match(signature, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(signer.verify('blob-id-0001', expires, signature, NOW), 'ok');
    assert.equal(signer.verify('blob-id-0001', String(expires), signature, EXPIRES - 1), 'ok');
  });

  it('reports expired at and after the expiry', () => {
    assert.equal(signer.verify('blob-id-0001', expires, signature, EXPIRES), 'expired');
    assert.equal(signer.verify('blob-id-0001', expires, signature, EXPIRES + 1), 'expired');
  });

  it('reports invalid for tampered signatures, ids, expiries or secrets', () => {
    assert.equal(signer.verify('blob-id-0001', expires, tamper(signature), NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0002', expires, signature, NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', expires + 1, signature, NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', `${expires}.0`, signature, NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', expires, `${signature}=`, NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', expires, signature.slice(0, 20), NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', expires, '', NOW), 'invalid');
    assert.equal(new UrlSigner(randomBytes(32)).verify('blob-id-0001', expires, signature, NOW), 'invalid');
    // A forged link never learns that it would have expired.
    assert.equal(signer.verify('blob-id-0001', expires, tamper(signature), EXPIRES + 1), 'invalid');
  });

  it('covers the download name: a named signature fits only that name, and never the bare link or another id', () => {
    const named = signer.sign('blob-id-0001', EXPIRES, 'clip.mp4');
    assert.notEqual(named.signature, signature);
    assert.equal(signer.verify('blob-id-0001', EXPIRES, named.signature, NOW, 'clip.mp4'), 'ok');
    assert.equal(signer.verify('blob-id-0001', EXPIRES, named.signature, NOW, 'clip.html'), 'invalid');
    assert.equal(signer.verify('blob-id-0001', EXPIRES, named.signature, NOW), 'invalid');
    assert.equal(signer.verify('blob-id-0001', EXPIRES, signature, NOW, 'clip.mp4'), 'invalid');
    // "id/name" must not pass for an id holding the slash.
    assert.equal(signer.verify('blob-id-0001/clip.mp4', EXPIRES, named.signature, NOW), 'invalid');
    assert.throws(() => signer.sign('a/b', EXPIRES), RangeError);
  });

  it('refuses short secrets and bad expiries', () => {
    assert.throws(() => new UrlSigner(randomBytes(8)), RangeError);
    assert.throws(() => signer.sign('blob-id-0001', 1.5), RangeError);
    assert.throws(() => signer.sign('blob-id-0001', -1), RangeError);
  });
});

describe('loadOrCreateSecret', () => {
  it('creates a 32-byte secret readable only by its owner, then returns the same one', async () => {
    const dir = join(await freshDir(), 'data');
    const secret = await loadOrCreateSecret(dir);
    assert.equal(secret.length, 32);
    const file = join(dir, 'signing-secret');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await loadOrCreateSecret(dir), secret);
    assert.deepEqual(await readFile(file), secret);
  });

  it('keeps links valid across a restart', async () => {
    const dir = await freshDir();
    const original = new UrlSigner(await loadOrCreateSecret(dir));
    const link = original.sign('blob-id-0001', EXPIRES);
    const restarted = new UrlSigner(await loadOrCreateSecret(dir));
    assert.equal(restarted.verify('blob-id-0001', link.expires, link.signature, NOW), 'ok');
  });

  it('gives every concurrent caller the same secret', async () => {
    const dir = await freshDir();
    const secrets = await Promise.all(Array.from({ length: 10 }, () => loadOrCreateSecret(dir)));
    assert.ok(secrets.every((secret) => secret.equals(secrets[0])));
  });

  it('refuses a secret file that is too short', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'signing-secret'), 'short');
    await assert.rejects(loadOrCreateSecret(dir), /fewer than 16 bytes/);
  });
});
