import type { BlobRef } from './job.js';
import { wellFormed } from './file-name.js';

/** Signs blob ids (and download names) into expiring tokens and checks them (implemented by `storage/url-signer.ts`). */
export interface BlobLinkSigner {
  /** Signs a link to `blobId` until `expiresAtMs`; with `fileName`, the signature covers the download name too. */
  sign(blobId: string, expiresAtMs: number, fileName?: string): { expires: number; signature: string };
  /** Checks a link; `fileName` is the name its path carries (decoded), if any. */
  verify(blobId: string, expires: number, signature: string, nowMs: number, fileName?: string): 'ok' | 'expired' | 'invalid';
}

/**
 * Builds the signed, expiring file links that appear in responses (`path`, avatar image links):
 * `<base>/files/<blobId>/<fileName>?expires=…&signature=…`. The signature covers the blob id, the expiry and the
 * file name, so nobody holding a link can change the name the download is served under.
 */
export class LinkBuilder {
  constructor(
    private readonly signer: BlobLinkSigner,
    private readonly baseUrl: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** A link to the blob, or `''` when there is no blob (not generated yet, or deleted by retention). */
  to(blob: BlobRef | undefined, fileName?: string): string {
    if (!blob) return '';
    const name = fileName ? wellFormed(fileName) : undefined;
    const { expires, signature } = this.signer.sign(blob.id, this.now() + this.ttlMs, name);
    const segment = name ? `/${encodeURIComponent(name)}` : '';
    return `${this.baseUrl}/files/${blob.id}${segment}?expires=${expires}&signature=${signature}`;
  }
}
