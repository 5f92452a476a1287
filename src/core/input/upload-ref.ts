/** Path suffix of this service's upload links, with the blob id captured. */
const UPLOAD_PATH = /\/v1\/uploads\/([^/?#]+)\/?$/;
/** The short form `upload://<blobId>`, accepted beside the full link. */
const UPLOAD_SCHEME = /^upload:\/\/([^/?#]+)\/?$/i;
/** Blob ids the service hands out: URL-safe characters only (also rules out path tricks). */
const BLOB_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** What {@link parseUploadRef} found. */
export type UploadRef = { kind: 'upload'; blobId: string | undefined } | { kind: 'remote' };

/**
 * Tells an upload link of this service from a remote URL. Upload links are recognised by their path, whatever the
 * host (the service may sit behind proxies and several names): any URL whose path ends in `/v1/uploads/<blobId>`
 * (a mount prefix before it is fine; query and fragment are ignored), and the short form `upload://<blobId>`.
 * `blobId` is `undefined` when the link has the upload shape but not a valid id.
 */
export function parseUploadRef(url: string): UploadRef {
  const short = UPLOAD_SCHEME.exec(url.trim());
  if (short) return { kind: 'upload', blobId: validId(short[1]) };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'remote' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { kind: 'remote' };
  const match = UPLOAD_PATH.exec(parsed.pathname);
  return match ? { kind: 'upload', blobId: validId(match[1]) } : { kind: 'remote' };
}

function validId(raw: string | undefined): string | undefined {
  return raw !== undefined && BLOB_ID.test(raw) ? raw : undefined;
}
