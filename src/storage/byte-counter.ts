import { Transform, type TransformCallback } from 'node:stream';
import { BlobTooLargeError } from './blob-store.js';

/** A pass-through stream that counts bytes and fails with {@link BlobTooLargeError} past `limit`. */
export class ByteCounter extends Transform {
  /** Bytes seen so far. */
  bytes = 0;

  constructor(readonly limit?: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.limit !== undefined && this.bytes > this.limit) callback(new BlobTooLargeError(this.limit));
    else callback(null, chunk);
  }
}
