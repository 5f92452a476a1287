/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `value` rounded to `digits` decimals (3 by default: milliseconds of a time in seconds). */
export function round(value: number, digits = 3): number {
  return Math.round(value * 10 ** digits) / 10 ** digits;
}
