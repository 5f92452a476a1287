import type { BlobRef } from './job.js';

/** Signs blob ids into expiring tokens and checks them (implemented by `storage/url-signer.ts`). */
export interface BlobLinkSigner {
  sign(blobId: string, expiresAtMs: number): { expires: number; signature: string };
  verify(blobId: string, expires: number, signature: string, nowMs: number): 'ok' | 'expired' | 'invalid';
}

/** Builds the signed, expiring file links that appear in responses (`path`, avatar image links). */
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
    const { expires, signature } = this.signer.sign(blob.id, this.now() + this.ttlMs);
    const name = fileName ? `/${encodeURIComponent(fileName)}` : '';
    return `${this.baseUrl}/files/${blob.id}${name}?expires=${expires}&signature=${signature}`;
  }
}
