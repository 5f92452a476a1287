/**
 * ffmpeg's f32le output (see decode.ts) as Float32Arrays, for the engines that read it: the separation's decoders and
 * the lip-sync analysis.
 */
import { endianness } from 'node:os';

/** Whether this machine stores floats little-endian, as ffmpeg's f32le output does (then bytes are read in place). */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Turns a byte stream into Float32Arrays of whole sample frames, carrying partial values to the next chunk. On a
 * little-endian machine a chunk's whole frames are viewed where they are (the chunk is the stream's own, and the
 * caller copies what it keeps), not copied.
 */
export class PcmFrameReader {
  private carry = Buffer.alloc(0);
  constructor(private readonly channels: number) {}

  read(chunk: Buffer): Float32Array {
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const frameBytes = 4 * this.channels;
    const usable = bytes.length - (bytes.length % frameBytes);
    this.carry = Buffer.from(bytes.subarray(usable));
    if (LITTLE_ENDIAN) {
      if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, usable / 4);
      return new Float32Array(Uint8Array.prototype.slice.call(bytes, 0, usable).buffer);
    }
    const out = new Float32Array(usable / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(4 * i);
    return out;
  }
}
