/** A `type/subtype` media type, lower-cased, without parameters. */
const MEDIA_TYPE = /^[a-z0-9][\w.+-]*\/[\w.+-]+$/;

/**
 * Cleans a client- or server-supplied Content-Type for storing beside a blob: parameters dropped, lower-cased,
 * and `application/octet-stream` when it is missing or does not look like a media type.
 */
export function cleanMediaType(raw: string | undefined): string {
  const type = (raw ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}
