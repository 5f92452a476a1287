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

/** A confidence interval for a median, and the confidence it has. */
export interface MedianInterval {
  low: number;
  high: number;
  /** The probability that the interval holds the true median (at least the level asked for, where values suffice). */
  level: number;
}

/**
 * A distribution-free confidence interval for the median of `values` (independent rounds of one measurement): the
 * order statistics x(j) and x(n + 1 − j) for the largest j whose coverage, 1 − 2·P(Binomial(n, ½) < j), is at least
 * `level`. Where there are too few values for `level` (fewer than 6 for 95 %) it is the smallest and the largest, and
 * its `level` says what they cover.
 */
export function medianInterval(values: readonly number[], level = 0.95): MedianInterval {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) throw new RangeError('no values');
  // P(Binomial(n, ½) < j) summed from P(B = i) = C(n, i) / 2^n.
  let probability = 2 ** -n;
  let below = 0;
  let best = { j: 1, coverage: 1 - 2 * probability };
  for (let j = 1; j <= Math.floor((n + 1) / 2); j++) {
    below += probability; // P(B = j − 1)
    probability = (probability * (n - (j - 1))) / j;
    const coverage = 1 - 2 * below;
    if (coverage >= level) best = { j, coverage };
  }
  return { low: sorted[best.j - 1]!, high: sorted[n - best.j]!, level: best.coverage };
}

/**
 * Whether rounds whose median lies within `interval` meet "at most `target`": `met` when the whole interval is at or
 * below it, `missed` when it lies above, `within noise` when the machine's spread between rounds covers the target.
 */
export function verdictAtMost(interval: MedianInterval, target: number): 'met' | 'missed' | 'within noise' {
  if (interval.high <= target) return 'met';
  if (interval.low > target) return 'missed';
  return 'within noise';
}
