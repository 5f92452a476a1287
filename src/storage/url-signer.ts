import { createHmac, randomBytes, timingSafeEqual, type Hmac } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsErrorCode } from './fs-error-code.js';

/** Outcome of {@link UrlSigner.verify}. */
export type SignatureCheck = 'ok' | 'expired' | 'invalid';

/** The query parameters of a signed link. */
export interface SignedParams {
  /** Expiry in epoch milliseconds. */
  expires: number;
  /** HMAC-SHA256 of blob id, expiry and (when the link names one) download name, base64url. */
  signature: string;
}

/** Fewest secret bytes accepted. */
const MIN_SECRET_BYTES = 16;

/**
 * Signs and checks expiring file links: `signature = HMAC-SHA256(secret, "<expires>:<blobId>")`, or
 * `"<expires>:<blobId>/<fileName>"` for a link that names the download, in base64url. The expiry comes first and
 * holds only digits, and a blob id never holds `/` (such ids are refused), so no two (id, expiry, name) triples
 * sign the same text: a signed link's name cannot be changed, and a name cannot be added to a link signed without.
 */
export class UrlSigner {
  readonly #secret: Buffer;

  constructor(secret: Buffer) {
    if (secret.length < MIN_SECRET_BYTES) throw new RangeError(`secret must have at least ${MIN_SECRET_BYTES} bytes`);
    this.#secret = Buffer.from(secret);
  }

  /**
   * Signs a link to `blobId` valid until `expiresAtMs` (epoch ms, a non-negative integer), covering the download
   * name `fileName` when given (the name as the link's path carries it, decoded).
   */
  sign(blobId: string, expiresAtMs: number, fileName?: string): SignedParams {
    if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs < 0) {
      throw new RangeError(`expiresAtMs must be a non-negative integer, got ${expiresAtMs}`);
    }
    if (blobId.includes('/')) throw new RangeError(`a blob id never holds "/", got ${blobId}`);
    // Straight to base64url: a Buffer and its conversion would cost as much again as the HMAC itself.
    return { expires: expiresAtMs, signature: this.#hmac(blobId, String(expiresAtMs), fileName).digest('base64url') };
  }

  /**
   * Checks a link's parameters as they arrive (strings from a query, or numbers).
   * `invalid` when the signature does not match (checked first, so a forged link never learns
   * anything about expiry); `expired` when it matches but `nowMs` is at or past `expires`. `fileName` is the
   * link's download name, when its path has one: it must be the signed one.
   */
  verify(blobId: string, expires: string | number, signature: string, nowMs: number, fileName?: string): SignatureCheck {
    const expiresText = String(expires);
    if (!/^\d{1,16}$/.test(expiresText) || blobId.includes('/')) return 'invalid';
    const expected = this.#mac(blobId, expiresText, fileName);
    const given = Buffer.from(signature, 'base64url');
    // Round-trip check: Buffer.from ignores junk characters, so only the canonical spelling counts.
    if (given.toString('base64url') !== signature || given.length !== expected.length) return 'invalid';
    if (!timingSafeEqual(given, expected)) return 'invalid';
    return nowMs >= Number(expiresText) ? 'expired' : 'ok';
  }

  #mac(blobId: string, expires: string, fileName: string | undefined): Buffer {
    return this.#hmac(blobId, expires, fileName).digest();
  }

  #hmac(blobId: string, expires: string, fileName: string | undefined): Hmac {
    const text = fileName === undefined ? `${expires}:${blobId}` : `${expires}:${blobId}/${fileName}`;
    return createHmac('sha256', this.#secret).update(text, 'utf8');
  }
}

/**
 * Returns the signing secret kept in `<dataDir>/signing-secret`, creating it (32 random bytes,
 * mode 0600) on first use, so signed links stay valid across restarts. Safe when several
 * processes start at once: the file appears complete (written aside, then hard-linked) and the
 * first one wins.
 */
export async function loadOrCreateSecret(dataDir: string): Promise<Buffer> {
  const file = join(dataDir, 'signing-secret');
  const existing = await readSecret(file);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true });
  const partial = `${file}.${randomBytes(8).toString('hex')}.tmp`;
  await writeFile(partial, randomBytes(32), { mode: 0o600, flag: 'wx' });
  try {
    await link(partial, file);
  } catch (error) {
    if (fsErrorCode(error) !== 'EEXIST') throw error;
  } finally {
    await rm(partial, { force: true });
  }
  const secret = await readSecret(file);
  if (!secret) throw new Error(`could not create ${file}`);
  return secret;
}

async function readSecret(file: string): Promise<Buffer | undefined> {
  try {
    const secret = await readFile(file);
    if (secret.length < MIN_SECRET_BYTES) throw new Error(`${file} holds fewer than ${MIN_SECRET_BYTES} bytes`);
    return secret;
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}
