import { createHash } from 'node:crypto';

/** Fixed namespace of avatar uids (a random UUID chosen once for this package). */
const NAMESPACE = Buffer.from('6f0d3c0e2b9a4f5c8e7d1a2b3c4d5e6f', 'hex');

/** The stable UUID (version 5, RFC 4122) of an avatar definition id: the same id always gives the same uid. */
export function avatarUid(definitionId: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(definitionId).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A short fingerprint of a definition: assets are regenerated when it changes. */
export function definitionFingerprint(definition: unknown): string {
  return createHash('sha256').update(stableJson(definition)).digest('base64url').slice(0, 16);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
