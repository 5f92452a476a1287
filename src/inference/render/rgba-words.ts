/** `bytes` (RGBA, four a pixel) as 32-bit words, a pixel each: a view where it is aligned for it, else a copy. */
export function wordsOf(bytes: Uint8Array): Uint32Array {
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2);
  return new Uint32Array(bytes.slice().buffer, 0, bytes.length >> 2);
}

/** `words` (RGBA pixels as 32-bit words) as their bytes: a view of the same memory. */
export function bytesOf(words: Uint32Array): Uint8Array {
  return new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
}
