import type { BlobMeta } from './blob-store.js';

const HOUR_MS = 3_600_000;

/**
 * Where an {@link S3BlobStore} keeps things in its bucket, below its key prefix:
 *
 *   blobs/<id>                          the bytes; size, type and {@link BlobMeta} as object metadata
 *   expiry/<hour>/<expiresAtMs>.<id>    an empty marker per blob with an expiry, `<hour>` being `YYYY-MM-DDTHH` (UTC)
 *
 * The markers are the retention index: a sweep lists the hour folders (one short listing), then only the folders whose
 * hour has begun, so it never lists the blobs themselves nor the markers of later hours.
 */
export class S3Layout {
  constructor(readonly prefix: string) {}

  /** The key of a blob's bytes. */
  blob(id: string): string {
    return `${this.prefix}blobs/${id}`;
  }

  /** The folder of all expiry markers. */
  get expiryRoot(): string {
    return `${this.prefix}expiry/`;
  }

  /** The marker of `id` expiring at `expiresAt`. */
  marker(id: string, expiresAt: string): string {
    const ms = Date.parse(expiresAt);
    return `${this.expiryRoot}${hourOf(ms)}/${String(ms).padStart(15, '0')}.${id}`;
  }

  /** The hour folder (`expiry/<hour>/`) that holds markers of `ms`. */
  hourFolder(ms: number): string {
    return `${this.expiryRoot}${hourOf(ms)}/`;
  }

  /** Reads a marker key back into its blob id and expiry; `undefined` for a key that is no marker. */
  parseMarker(key: string): { id: string; expiresAtMs: number } | undefined {
    const match = /\/(\d{15})\.([A-Za-z0-9_-]{8,128})$/.exec(key);
    return match ? { expiresAtMs: Number(match[1]), id: match[2]! } : undefined;
  }
}

/** `YYYY-MM-DDTHH` of `ms` in UTC; sorts like time. */
function hourOf(ms: number): string {
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13);
}

/** Object metadata (`x-amz-meta-*`, ASCII only) holding {@link BlobMeta} and the creation time. */
export function encodeMeta(meta: BlobMeta, createdAt: string): Record<string, string> {
  const out: Record<string, string> = { owner: encodeURIComponent(meta.owner), 'created-at': createdAt };
  if (meta.expiresAt !== undefined) out['expires-at'] = meta.expiresAt;
  if (meta.fileName !== undefined) out['file-name'] = encodeURIComponent(meta.fileName);
  return out;
}

/** The inverse of {@link encodeMeta}; `createdAt` falls back to `lastModified` for objects written by other tools. */
export function decodeMeta(
  metadata: Record<string, string> | undefined,
  contentType: string | undefined,
  lastModified: Date | undefined,
): { meta: BlobMeta; createdAt: string } {
  const m = metadata ?? {};
  const meta: BlobMeta = { contentType: contentType ?? 'application/octet-stream', owner: decodeURIComponent(m['owner'] ?? '') };
  if (m['expires-at']) meta.expiresAt = m['expires-at'];
  if (m['file-name']) meta.fileName = decodeURIComponent(m['file-name']);
  return { meta, createdAt: m['created-at'] ?? (lastModified ?? new Date(0)).toISOString() };
}
