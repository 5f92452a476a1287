import { open } from 'node:fs/promises';

/** The image types a photo avatar accepts, by their first bytes. */
export type PhotoType = 'image/jpeg' | 'image/png' | 'image/webp';

/** What the file's first bytes say it is: JPEG, PNG or WebP, else `undefined` (whatever its name or claimed type). */
export async function sniffPhotoType(path: string): Promise<PhotoType | undefined> {
  const file = await open(path, 'r');
  const head = Buffer.alloc(12);
  try {
    await file.read(head, 0, head.length, 0);
  } finally {
    await file.close();
  }
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
