import { create as contentDisposition } from 'content-disposition';
import type { BlobRef } from '../domain/job.js';
import { downloadName, wellFormed } from './file-name.js';
import type { PresignOptions } from '../storage/blob-store.js';

/** Signs blob ids (and download names) into expiring tokens and checks them (implemented by `storage/url-signer.ts`). */
export interface BlobLinkSigner {
  /** Signs a link to `blobId` until `expiresAtMs`; with `fileName`, the signature covers the download name too. */
  sign(blobId: string, expiresAtMs: number, fileName?: string): { expires: number; signature: string };
  /** Checks a link; `fileName` is the name its path carries (decoded), if any. */
  verify(blobId: string, expires: number, signature: string, nowMs: number, fileName?: string): 'ok' | 'expired' | 'invalid';
}

/** Makes a presigned GET URL served by the blob store itself (a store with the `presignedGet` capability). */
export type PresignFn = (blobId: string, options: PresignOptions) => Promise<string>;

/** Signed links a {@link LinkBuilder} remembers at most; it forgets them all when full. */
const MAX_REMEMBERED_LINKS = 10_000;
/** The longest a link is handed out again, as a share of its lifetime and in milliseconds. */
const REUSE_SHARE = 0.01;
const MAX_REUSE_MS = 60_000;

/**
 * Builds the expiring file links that appear in responses (`path`, avatar image links), valid `ttlMs`:
 *
 * - with `presign` (the blob store has the `presignedGet` capability, e.g. S3): a presigned GET URL of the store,
 *   answering with the blob's type and `Content-Disposition: inline` with the download name; the bytes never pass
 *   through this process;
 * - otherwise `<base>/files/<blobId>/<fileName>?expires=…&signature=…`, served by the file route. The signature covers
 *   the blob id, the expiry and the file name, so nobody holding a link can change the name the download is served under.
 *   A link signed for one answer is handed out again by later ones while it has at least 99 % of `ttlMs` left
 *   (a minute at most), so a list polled many times a second signs each of its links once in that time.
 */
export class LinkBuilder {
  /** `<blobId>/<fileName>` (or the id alone) → the last link signed for it and its expiry. */
  readonly #signed = new Map<string, { link: string; expires: number }>();
  readonly #reuseMs: number;

  constructor(
    private readonly signer: BlobLinkSigner,
    private readonly baseUrl: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly presign?: PresignFn,
  ) {
    this.#reuseMs = Math.min(ttlMs * REUSE_SHARE, MAX_REUSE_MS);
  }

  /**
   * The link handed out in responses: a presigned URL of the store when it can make one, else {@link LinkBuilder.to}.
   * `''` when there is no blob (not generated yet, or deleted by retention).
   */
  async link(blob: BlobRef | undefined, fileName?: string): Promise<string> {
    if (!blob || !this.presign) return this.to(blob, fileName);
    const name = fileName ? wellFormed(fileName) : undefined;
    return this.presign(blob.id, {
      expiresInMs: this.ttlMs,
      contentType: blob.contentType,
      contentDisposition: name ? contentDisposition(downloadName(name), { type: 'inline' }) : undefined,
    });
  }

  /** A signed `/files` link to the blob (served by this process), or `''` when there is no blob. */
  to(blob: BlobRef | undefined, fileName?: string): string {
    if (!blob) return '';
    const name = fileName ? wellFormed(fileName) : undefined;
    const now = this.now();
    // A blob id never holds `/`, so the key names one (id, name) pair.
    const key = name ? `${blob.id}/${name}` : blob.id;
    const remembered = this.#signed.get(key);
    if (remembered && remembered.expires - now >= this.ttlMs - this.#reuseMs && remembered.expires - now <= this.ttlMs) return remembered.link;
    const { expires, signature } = this.signer.sign(blob.id, now + this.ttlMs, name);
    const segment = name ? `/${encodeURIComponent(name)}` : '';
    const link = `${this.baseUrl}/files/${blob.id}${segment}?expires=${expires}&signature=${signature}`;
    if (this.#signed.size >= MAX_REMEMBERED_LINKS) this.#signed.clear();
    this.#signed.set(key, { link, expires });
    return link;
  }
}
