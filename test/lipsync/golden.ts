import { readFileSync } from 'node:fs';

/** models/lipsync/golden.json, written by training/lipsync/export.py. */
export interface Golden {
  samples: number;
  features: number[][];
  posteriors: number[][];
}
export const golden: Golden = JSON.parse(
  readFileSync(new URL('../../models/lipsync/golden.json', import.meta.url), 'utf8'),
) as Golden;

/** Same formula as golden_signal() in training/lipsync/export.py. */
export function goldenSignal(): Float64Array {
  return Float64Array.from({ length: golden.samples }, (_, n) => {
    if (n < 800) return 0;
    const t = n / 16000;
    return (
      0.4 * Math.sin(2 * Math.PI * 220 * t) * (0.6 + 0.4 * Math.sin(2 * Math.PI * 5 * t)) +
      0.15 * Math.sin(2 * Math.PI * (1000 + 2000 * t) * t)
    );
  });
}
