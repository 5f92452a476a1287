/** Small colour helpers for derived shades (shadows, highlights) of the look's hex colours. */

type Rgb = [number, number, number];

/** Parses `#rgb` or `#rrggbb`. */
export function parseHex(hex: string): Rgb {
  const h = hex.slice(1);
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
  const n = Number.parseInt(full, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: Rgb): string {
  const clamp = (v: number) => Math.max(0, Math.min(255, Math.round(v)));
  return `#${((1 << 24) | (clamp(r) << 16) | (clamp(g) << 8) | clamp(b)).toString(16).slice(1)}`;
}

/** Linear mix of two colours: `amount` 0 gives `a`, 1 gives `b`. */
export function mixColor(a: string, b: string, amount: number): string {
  const x = parseHex(a);
  const y = parseHex(b);
  return toHex([0, 1, 2].map((i) => x[i] + (y[i] - x[i]) * amount) as Rgb);
}

/** Darker (`amount` > 0) or lighter (`amount` < 0) version of `color`. */
export function shade(color: string, amount: number): string {
  return amount >= 0 ? mixColor(color, '#000000', amount) : mixColor(color, '#ffffff', -amount);
}

/** `color` with an alpha, as `rgba(...)`. */
export function withAlpha(color: string, alpha: number): string {
  const [r, g, b] = parseHex(color);
  return `rgba(${r},${g},${b},${alpha})`;
}
