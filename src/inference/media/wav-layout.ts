/**
 * The layout of a plain PCM WAV file (RIFF, little-endian), read from its header: enough to read its samples without
 * ffmpeg (see wav-pcm.ts), or to know its format without ffprobe (the separation, separate.ts). Anything else
 * (compressed codecs, RF64, big-endian RIFX, more than two channels, a header that does not add up) is not a plain
 * PCM WAV here, and its readers fall back to ffmpeg and ffprobe.
 */
import { open, type FileHandle } from 'node:fs/promises';

/** How a plain PCM WAV file's samples are stored. */
export interface WavLayout {
  /** Samples per second per channel. */
  sampleRate: number;
  /** 1 (mono) or 2 (stereo, interleaved). */
  channels: 1 | 2;
  /** Integer PCM (8-bit unsigned; 16, 24, 32-bit signed) or IEEE float (32 or 64 bits). */
  encoding: 'int' | 'float';
  bytesPerSample: 1 | 2 | 3 | 4 | 8;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of whole sample frames from `dataOffset` that the file holds (a `data` size past the file's end is cut). */
  dataBytes: number;
}

/** WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT and WAVE_FORMAT_EXTENSIBLE (whose subformat then says which). */
const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;
/** How far into the file the `data` chunk is looked for (headers with large metadata chunks go to ffmpeg). */
const HEADER_LIMIT = 64 * 1024;

/** The layout of the WAV file open as `file` (of `fileSize` bytes), or none when it is not a plain PCM WAV. */
export async function readWavLayout(file: FileHandle, fileSize: number): Promise<WavLayout | undefined> {
  const head = Buffer.alloc(Math.min(HEADER_LIMIT, fileSize));
  const { bytesRead } = await file.read(head, 0, head.length, 0);
  return parseWavLayout(head.subarray(0, bytesRead), fileSize);
}

/** The layout of the WAV file at `path`, or none when it is not a plain PCM WAV (or cannot be read here). */
export async function wavLayoutAt(path: string): Promise<WavLayout | undefined> {
  const file = await open(path, 'r').catch(() => undefined);
  if (!file) return undefined;
  try {
    return await readWavLayout(file, (await file.stat()).size);
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/** The seconds of sound `layout` holds. */
export function wavSeconds(layout: WavLayout): number {
  return layout.dataBytes / (layout.bytesPerSample * layout.channels * layout.sampleRate);
}

/** {@link readWavLayout} on the first bytes of a file (`head`) of `fileSize` bytes. */
export function parseWavLayout(head: Buffer, fileSize: number): WavLayout | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let format: Omit<WavLayout, 'dataOffset' | 'dataBytes'> | undefined;
  for (let at = 12; at + 8 <= head.length; ) {
    const id = head.toString('latin1', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (format || size < 16 || body + size > head.length) return undefined;
      format = parseFormat(head.subarray(body, body + size));
      if (!format) return undefined;
    } else if (id === 'data') {
      if (!format) return undefined;
      const available = Math.max(0, Math.min(size, fileSize - body));
      const frameBytes = format.bytesPerSample * format.channels;
      return { ...format, dataOffset: body, dataBytes: available - (available % frameBytes) };
    }
    // Chunks are padded to an even size.
    at = body + size + (size & 1);
  }
  return undefined;
}

function parseFormat(fmt: Buffer): Omit<WavLayout, 'dataOffset' | 'dataBytes'> | undefined {
  let tag = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const blockAlign = fmt.readUInt16LE(12);
  const bits = fmt.readUInt16LE(14);
  if (tag === EXTENSIBLE) {
    // cbSize (22 or more), valid bits, channel mask, then the subformat GUID whose first two bytes are the tag.
    if (fmt.length < 40 || fmt.readUInt16LE(16) < 22) return undefined;
    if (fmt.readUInt16LE(18) !== bits) return undefined; // fewer valid bits than stored: left to ffmpeg
    tag = fmt.readUInt16LE(24);
    if (fmt.toString('hex', 26, 40) !== '000000001000800000aa00389b71') return undefined;
  }
  if (channels !== 1 && channels !== 2) return undefined;
  if (!(sampleRate >= 1000 && sampleRate <= 768_000)) return undefined;
  const bytesPerSample = bits / 8;
  const encoding = tag === PCM ? 'int' : tag === FLOAT ? 'float' : undefined;
  if (!encoding) return undefined;
  const allowed = encoding === 'int' ? [1, 2, 3, 4] : [4, 8];
  if (!allowed.includes(bytesPerSample) || blockAlign !== bytesPerSample * channels) return undefined;
  return { sampleRate, channels, encoding, bytesPerSample: bytesPerSample as WavLayout['bytesPerSample'] };
}
