import type { BlobStore } from '../../storage/blob-store.js';

/**
 * Whether a file's first bytes are those of a video container the video avatars take: ISO base media (MP4, MOV, and
 * their kin: an `ftyp` box, or an old QuickTime file's first atom) or Matroska (MKV, WebM: the EBML header). Decided
 * by content, as images are; what it holds (a picture, sound only) is for the probe to say.
 */
export function isVideoContainer(head: Uint8Array): boolean {
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return true;
  if (head.length < 8) return false;
  const box = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
  return ['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(box);
}

/** The first bytes of blob `id` (at most `count`). */
export async function blobHead(blobs: BlobStore, id: string, count = 16): Promise<Uint8Array> {
  const stream = await blobs.open(id, { start: 0, end: count - 1 });
  if (!stream) return new Uint8Array(0);
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).subarray(0, count);
}
