/**
 * Decompression bombs: small files that decode to huge images, built here rather than stored.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createDeflate, crc32 } from 'node:zlib';

/** A PNG chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid 8-bit greyscale PNG of `width` × `height` black pixels: every filter byte and pixel is 0, so it deflates
 * about 1000:1 (20000 × 20000 is 389 KB) and decodes to at least one byte a pixel (four in an RGBA canvas).
 */
export async function zeroPng(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rowBytes = width + 1;
  const rowsPerChunk = Math.max(1, Math.floor((1 << 20) / rowBytes));
  const zeros = Buffer.alloc(rowBytes * rowsPerChunk);
  const rows = function* () {
    for (let row = 0; row < height; row += rowsPerChunk) yield zeros.subarray(0, rowBytes * Math.min(rowsPerChunk, height - row));
  };
  const idat = await buffer(Readable.from(rows()).pipe(createDeflate({ level: 9 })));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Offset of the first frame header (SOFn marker) of a well-formed JPEG, walking its segments from SOI. */
export function sofOffset(jpeg: Buffer): number {
  for (let at = 2; at + 4 <= jpeg.length; at += 2 + jpeg.readUInt16BE(at + 2)) {
    if (jpeg[at] !== 0xff) throw new Error(`no marker at ${at}`);
    const marker = jpeg[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return at;
    if (marker === 0xda) break;
  }
  throw new Error('no frame header (SOF) before the first scan');
}

/** A baseline 16 × 16 frame header (three components), as a fake one to append. */
export const FAKE_SOF = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x10, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);

/**
 * The JPEG bomb whose header two readers see differently: `jpeg`'s frame header (SOF) rewritten to claim
 * `width` × `height` (libjpeg decodes that size, the missing scan data as grey), one legal 0xFF fill byte put before
 * it, and a fake 16 × 16 SOF after the end of the image (EOI), which libjpeg never reads. A reader that expects a
 * marker right after each segment (`image-size` 2.1) is thrown off by the fill byte: it takes the SOF's marker code
 * and the high byte of its length (C0 00) for a segment length and looks 49152 bytes further on; for a JPEG shorter
 * than that the fake SOF is put exactly there (zeros between), so such a reader sees a 16 × 16 image (checked with
 * image-size 2.1.0 when this was written: 16 × 16, while Skia decoded 13000 × 13000). A longer JPEG gets the fake
 * SOF right after its EOI.
 */
export function divergentJpeg(jpeg: Buffer, width: number, height: number): Buffer {
  const at = sofOffset(jpeg);
  const rewritten = Buffer.from(jpeg);
  rewritten.writeUInt16BE(height, at + 5);
  rewritten.writeUInt16BE(width, at + 7);
  const withFill = Buffer.concat([rewritten.subarray(0, at), Buffer.from([0xff]), rewritten.subarray(at)]);
  const landing = at + 2 + ((rewritten[at + 1]! << 8) | rewritten[at + 2]!);
  return Buffer.concat([withFill, Buffer.alloc(Math.max(0, landing - withFill.length)), FAKE_SOF]);
}
