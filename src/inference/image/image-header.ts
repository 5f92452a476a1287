/**
 * The pixel size an image will decode to, read from its header by the rules of the decoder that decodes it, so a
 * decompression bomb is refused before any pixel is allocated.
 *
 * Why a header walk of our own: @napi-rs/canvas (Skia; libjpeg-turbo 3.1, libpng 1.6, libwebp) decodes the whole
 * image as soon as an `Image` gets its `src`: `loadImage` resolves only after the pixels exist (measured with
 * 1.1.1: +400 MB RSS for a 20000 × 20000 grey PNG of 389 KB, +680 MB for a 13000 × 13000 JPEG of 68 KB, before any
 * `drawImage`), and it offers neither a header-only read nor a pixel limit. The size it reports before that decode
 * comes from the Rust `imagesize` crate, a third parser, which reads 0 × 0 for a JPEG with a fill byte before its
 * frame header. A generic size reader (`image-size`) disagrees with libjpeg the same way: it misses a frame header
 * behind a fill byte and takes a fake one after the end of the image. So this module follows the decoders' own
 * rules:
 *
 * - JPEG, as libjpeg-turbo's marker reader (jdmarker.c): SOI first; before each marker any other bytes and any
 *   number of 0xFF fill bytes are skipped (a stuffed FF 00 too); the one frame header (SOF0–3, SOF9–11) before the
 *   first scan (SOS) gives the size; a second SOF, an unsupported or unknown marker, a zero size, or an end (EOI)
 *   before any scan is refused, as libjpeg refuses it. What follows the first SOS cannot change the size.
 * - PNG, as libpng: the signature, then IHDR as the first chunk (13 bytes), whose width and height are the size.
 * - WebP, as libwebp's demuxer (which Skia uses): the first chunk is VP8X (the canvas size, which every frame must
 *   fit), VP8 (a key frame's 14-bit size) or VP8L (its 14-bit size).
 *
 * Anything else, or a header this walk cannot account for, is refused rather than guessed. The decode then checks
 * the size Skia reports against this one (see `loadCheckedImage`), so a disagreement is refused too.
 */
import { open } from 'node:fs/promises';

/** The image formats the service decodes (photos and backgrounds). */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

/** What an image's header says, as its decoder reads it. */
export interface ImageHeader {
  format: ImageFormat;
  /** Size in pixels as stored (a JPEG's EXIF orientation may swap the two once decoded). */
  width: number;
  height: number;
}

/**
 * The most pixels an image may have to be decoded (50 megapixels, e.g. 8660 × 5773): photos and background images
 * are decoded whole, four bytes a pixel (200 MB at the limit), before they are scaled.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** An image refused from its header: not a JPEG, PNG or WebP whose size can be read, or too many pixels. */
export class ImageCheckError extends Error {
  override readonly name = 'ImageCheckError';

  constructor(
    message: string,
    /** True when the image is readable but has more pixels than allowed. */
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** Random access to the bytes of an image (a buffer or a file). */
export interface ByteSource {
  /** Length in bytes. */
  readonly size: number;
  /** Up to `length` bytes from `position`; fewer only at the end. */
  read(position: number, length: number): Promise<Uint8Array>;
}

/** A {@link ByteSource} over bytes in memory (no copy). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (position, length) => bytes.subarray(position, position + length) };
}

/**
 * The header of `source`, checked: at most `maxPixels` pixels.
 * @throws ImageCheckError when it is not a JPEG, PNG or WebP whose size can be read, or is too large.
 */
export async function checkImageHeader(source: ByteSource, maxPixels = MAX_IMAGE_PIXELS): Promise<ImageHeader> {
  const header = await readImageHeader(source);
  if (header.width * header.height > maxPixels) {
    throw new ImageCheckError(
      `the image is too large to decode: ${header.width}×${header.height} pixels, at most ${maxPixels / 1e6} megapixels`,
      true,
    );
  }
  return header;
}

/** {@link checkImageHeader} of the file at `path`, which is read only as far as its header goes. */
export async function checkImageFile(path: string, maxPixels = MAX_IMAGE_PIXELS): Promise<ImageHeader> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const source: ByteSource = {
      size,
      read: async (position, length) => {
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
        const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
        return buffer.subarray(0, bytesRead);
      },
    };
    return await checkImageHeader(source, maxPixels);
  } finally {
    await file.close();
  }
}

/**
 * The format and size of the image in `source`, as its decoder reads them (see the module comment).
 * @throws ImageCheckError when it is not a JPEG, PNG or WebP, or its header does not follow the decoder's rules.
 */
export async function readImageHeader(source: ByteSource): Promise<ImageHeader> {
  const reader = new Reader(source);
  const head = await reader.upTo(0, 16);
  // The first bytes Skia's codecs recognise: FF D8 FF, the PNG signature, RIFF…WEBP.
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { format: 'jpeg', ...(await jpegSize(reader)) };
  if (PNG_SIGNATURE.every((byte, i) => head[i] === byte)) return { format: 'png', ...(await pngSize(reader)) };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return { format: 'webp', ...(await webpSize(reader)) };
  throw new ImageCheckError('the file is not a JPEG, PNG or WebP image');
}

type Size = { width: number; height: number };

const unreadable = (format: string, why: string) => new ImageCheckError(`the ${format} header cannot be read: ${why}`);

// --- JPEG -------------------------------------------------------------------------------------------------------

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
const TEM = 0x01;
/** Frame headers libjpeg-turbo 3 decodes: baseline, extended, progressive, lossless; Huffman or arithmetic. */
const DECODED_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc9, 0xca, 0xcb]);
/** Frame headers libjpeg refuses (hierarchical processes, and JPG): "Unsupported JPEG process". */
const REFUSED_SOF = new Set([0xc5, 0xc6, 0xc7, 0xc8, 0xcd, 0xce, 0xcf]);
/** Markers with a length that libjpeg reads or skips before the first scan: DHT, DAC, DNL, DQT, DRI, APP0–15, COM. */
const isSegment = (marker: number) =>
  marker === 0xc4 || marker === 0xcc || marker === 0xdb || marker === 0xdc || marker === 0xdd || (marker >= 0xe0 && marker <= 0xef) || marker === 0xfe;

async function jpegSize(reader: Reader): Promise<Size> {
  const fail = (why: string) => unreadable('JPEG', why);
  let position = 2;
  let size: Size | undefined;
  for (;;) {
    const found = await nextJpegMarker(reader, position);
    if (!found) throw fail('it ends before its first scan');
    const { marker } = found;
    position = found.next;
    if (marker === SOS) {
      if (!size) throw fail('a scan comes before the frame header (SOF)');
      return size;
    }
    if (DECODED_SOF.has(marker)) {
      if (size) throw fail('it has a second frame header (SOF)');
      const sof = await reader.bytes(position, 8, fail);
      const length = u16(sof, 0);
      size = { width: u16(sof, 5), height: u16(sof, 3) };
      const components = sof[7]!;
      if (size.width === 0 || size.height === 0 || components === 0) throw fail('its frame header declares no pixels');
      if (length !== 8 + 3 * components) throw fail('its frame header has the wrong length');
      position += length;
    } else if (isSegment(marker)) {
      const length = u16(await reader.bytes(position, 2, fail), 0);
      if (length < 2) throw fail(`a segment (0xFF${hex(marker)}) has a length under 2`);
      position += length;
    } else if ((marker >= 0xd0 && marker <= 0xd7) || marker === TEM) {
      // RST0–7 and TEM stand alone; libjpeg passes over them.
    } else if (REFUSED_SOF.has(marker)) {
      throw fail(`it uses a JPEG process the decoder does not support (0xFF${hex(marker)})`);
    } else if (marker === EOI) {
      throw fail('it ends (EOI) before its first scan');
    } else if (marker === SOI) {
      throw fail('it has a second start-of-image marker');
    } else {
      throw fail(`unknown marker 0xFF${hex(marker)}`);
    }
  }
}

/**
 * The marker at or after `position` as libjpeg's `next_marker` finds it: other bytes skipped up to an 0xFF, then
 * every 0xFF fill byte, and a stuffed FF 00 passed over; `next` is the position after the marker code.
 */
async function nextJpegMarker(reader: Reader, position: number): Promise<{ marker: number; next: number } | undefined> {
  for (;;) {
    const ff = await reader.indexOf(0xff, position);
    if (ff < 0) return undefined;
    const code = await reader.skipWhile(0xff, ff + 1);
    if (code >= reader.size) return undefined;
    const marker = (await reader.upTo(code, 1))[0]!;
    if (marker !== 0) return { marker, next: code + 1 };
    position = code + 1;
  }
}

// --- PNG --------------------------------------------------------------------------------------------------------

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function pngSize(reader: Reader): Promise<Size> {
  const fail = (why: string) => unreadable('PNG', why);
  const ihdr = await reader.bytes(8, 16, fail);
  if (ascii(ihdr, 4, 8) !== 'IHDR') throw fail('its first chunk is not IHDR');
  if (u32(ihdr, 0) !== 13) throw fail('its IHDR chunk has the wrong length');
  const size = { width: u32(ihdr, 8), height: u32(ihdr, 12) };
  if (size.width === 0 || size.height === 0 || size.width > 0x7fffffff || size.height > 0x7fffffff) throw fail('its IHDR declares an impossible size');
  return size;
}

// --- WebP -------------------------------------------------------------------------------------------------------

async function webpSize(reader: Reader): Promise<Size> {
  const fail = (why: string) => unreadable('WebP', why);
  const chunk = await reader.bytes(12, 8, fail);
  const fourcc = ascii(chunk, 0, 4);
  const length = u32(chunk, 4);
  if (fourcc === 'VP8X') {
    if (length < 10) throw fail('its VP8X chunk is too short');
    const vp8x = await reader.bytes(20, 10, fail);
    const size = { width: 1 + u24le(vp8x, 4), height: 1 + u24le(vp8x, 7) };
    if (size.width * size.height >= 2 ** 32) throw fail('its canvas is larger than libwebp allows');
    return size;
  }
  if (fourcc === 'VP8 ') {
    if (length < 10) throw fail('its VP8 chunk is too short');
    const frame = await reader.bytes(20, 10, fail);
    const bits = frame[0]! | (frame[1]! << 8) | (frame[2]! << 16);
    if ((bits & 1) !== 0) throw fail('its VP8 frame is not a key frame');
    if (((bits >> 1) & 7) > 3) throw fail('its VP8 frame has an unknown profile');
    if (((bits >> 4) & 1) === 0) throw fail('its VP8 frame is not shown');
    if (frame[3] !== 0x9d || frame[4] !== 0x01 || frame[5] !== 0x2a) throw fail('its VP8 frame has no start code');
    const size = { width: u16le(frame, 6) & 0x3fff, height: u16le(frame, 8) & 0x3fff };
    if (size.width === 0 || size.height === 0) throw fail('its VP8 frame declares no pixels');
    return size;
  }
  if (fourcc === 'VP8L') {
    if (length < 5) throw fail('its VP8L chunk is too short');
    const frame = await reader.bytes(20, 5, fail);
    if (frame[0] !== 0x2f) throw fail('its VP8L chunk has no signature');
    const bits = (frame[1]! | (frame[2]! << 8) | (frame[3]! << 16) | (frame[4]! << 24)) >>> 0;
    if (bits >>> 29 !== 0) throw fail('its VP8L version is unknown');
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  throw fail(`its first chunk (${JSON.stringify(fourcc)}) is not VP8X, VP8 or VP8L`);
}

// --- Reading ----------------------------------------------------------------------------------------------------

/** Bytes read from the source in windows of this size (a header is usually a few kilobytes). */
const WINDOW = 64 * 1024;

/** Buffered random access to a {@link ByteSource}. */
class Reader {
  private window: Uint8Array = new Uint8Array(0);
  private windowAt = 0;

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  /** Up to `length` bytes from `position` (fewer at the end). */
  async upTo(position: number, length: number): Promise<Uint8Array> {
    const end = Math.min(position + length, this.size);
    if (position < this.windowAt || end > this.windowAt + this.window.length) {
      this.window = await this.source.read(position, Math.max(end - position, WINDOW));
      this.windowAt = position;
    }
    return this.window.subarray(position - this.windowAt, end - this.windowAt);
  }

  /** Exactly `length` bytes from `position`; `fail` makes the error when the file ends first. */
  async bytes(position: number, length: number, fail: (why: string) => Error): Promise<Uint8Array> {
    const bytes = await this.upTo(position, length);
    if (bytes.length < length) throw fail('the file ends inside its header');
    return bytes;
  }

  /** Position of the first `value` at or after `position`, or -1. */
  async indexOf(value: number, position: number): Promise<number> {
    for (let at = position; at < this.size; ) {
      const chunk = await this.upTo(at, WINDOW);
      const found = chunk.indexOf(value);
      if (found >= 0) return at + found;
      at += chunk.length;
    }
    return -1;
  }

  /** Position of the first byte other than `value` at or after `position`, or {@link size}. */
  async skipWhile(value: number, position: number): Promise<number> {
    for (let at = position; at < this.size; ) {
      const chunk = await this.upTo(at, WINDOW);
      let i = 0;
      while (i < chunk.length && chunk[i] === value) i++;
      if (i < chunk.length) return at + i;
      at += chunk.length;
    }
    return this.size;
  }
}

const ascii = (bytes: Uint8Array, from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
const u16 = (bytes: Uint8Array, at: number) => (bytes[at]! << 8) | bytes[at + 1]!;
const u32 = (bytes: Uint8Array, at: number) => ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
const u16le = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8);
const u24le = (bytes: Uint8Array, at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, '0');
