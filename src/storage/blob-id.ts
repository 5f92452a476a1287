import { randomBytes } from 'node:crypto';

/** What a blob id may look like: URL-safe, 8 to 128 characters. Also keeps ids from escaping the blob folder. */
const BLOB_ID = /^[A-Za-z0-9_-]{8,128}$/;

/** True when `id` is a well-formed blob id. */
export function isBlobId(id: string): boolean {
  return BLOB_ID.test(id);
}

/** A new random blob id: 16 random bytes in base64url (22 characters). */
export function newBlobId(): string {
  return randomBytes(16).toString('base64url');
}
