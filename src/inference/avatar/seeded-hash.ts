/**
 * Deterministic pseudo-randomness for idle animation: a hash of (avatar id, channel, index)
 * mapped to [0, 1). The same inputs always give the same number, on every platform.
 */

/** FNV-1a over the UTF-16 code units of `text`, 32-bit. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A 32-bit finaliser (murmur3 fmix) so nearby indices give unrelated values. */
function mix(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A number in [0, 1) determined by `seed` (e.g. the avatar id), a `channel` name (what the number
 * is for, so blinks and gaze do not move together) and an integer `index` (a frame or time slot).
 */
export function seededUnit(seed: string, channel: string, index: number): number {
  const base = fnv1a(`${seed}\u0000${channel}`);
  return mix(base ^ mix(index | 0)) / 0x100000000;
}
