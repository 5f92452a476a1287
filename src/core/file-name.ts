/** Lone UTF-16 surrogates: characters that have no UTF-8 form (`String.prototype.toWellFormed`, before ES2024). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** C0 and C1 control characters and DEL: never part of a usable file name. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** `String.prototype.isWellFormed` (Node 20; not in the ES2022 lib this package compiles against). */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/** `text` with every lone surrogate replaced by U+FFFD, so that it encodes to UTF-8 (and URLs) without error. */
export function wellFormed(text: string): string {
  // The check first: names are nearly always well-formed, and the replacing pattern (with a look-behind) is slow.
  if (isWellFormed?.call(text)) return text;
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The longest prefix of `text` whose UTF-8 form has at most `maxBytes` bytes, cut between characters
 * (never inside a UTF-8 sequence or a surrogate pair). Lone surrogates become U+FFFD first.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const whole = wellFormed(text);
  if (Buffer.byteLength(whole, 'utf8') <= maxBytes) return whole;
  let bytes = 0;
  let end = 0;
  for (const char of whole) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return whole.slice(0, end);
}

/**
 * A name fit for a download's `Content-Disposition`: well-formed, with control characters replaced by U+FFFD
 * (the replacement character, so that the loss is visible), at most 255 bytes of UTF-8.
 */
export function downloadName(name: string): string {
  return truncateUtf8(name.replace(CONTROL, '\uFFFD'), 255);
}
