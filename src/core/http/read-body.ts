import type { Readable } from 'node:stream';

/**
 * How much of an over-limit body is still read off (and discarded) so that a keep-alive connection can carry
 * the next request. A body that goes on beyond this is answered with `Connection: close` instead.
 */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;

/** What {@link readBody} found. */
export type BodyRead =
  | { kind: 'body'; bytes: Buffer }
  /** Over the limit. `keepAlive`: the whole body was read off, so the connection may carry another request. */
  | { kind: 'too_large'; keepAlive: boolean }
  /** The client stopped sending before the end of the body (the connection is gone). */
  | { kind: 'aborted' };

/**
 * Reads a request body of at most `maxBytes` into memory, never more. Over the limit it stops buffering and reads
 * off up to {@link DRAIN_LIMIT_BYTES} more (as mature body parsers do), so that the answer can go out on a
 * connection that is not left half-read; a body that goes on beyond that is left unread, paused, and reported with
 * `keepAlive: false` (answer with `Connection: close`: Node then closes the connection after the answer).
 * A declared `Content-Length` over the limit skips buffering at once.
 */
export function readBody(stream: Readable, maxBytes: number, declaredLength?: number): Promise<BodyRead> {
  if (stream.readableEnded) return Promise.resolve({ kind: 'body', bytes: Buffer.alloc(0) });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = declaredLength !== undefined && declaredLength > maxBytes;
    const finish = (result: BodyRead): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onAborted);
      stream.off('close', onAborted);
      resolve(result);
    };
    const onData = (chunk: Buffer | string): void => {
      size += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (!over && size > maxBytes) {
        over = true;
        chunks.length = 0;
      }
      if (!over) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      else if (size > maxBytes + DRAIN_LIMIT_BYTES) {
        stream.pause();
        finish({ kind: 'too_large', keepAlive: false });
      }
    };
    const onEnd = (): void => finish(over ? { kind: 'too_large', keepAlive: true } : { kind: 'body', bytes: Buffer.concat(chunks) });
    const onAborted = (): void => finish({ kind: 'aborted' });
    if (over && declaredLength! > maxBytes + DRAIN_LIMIT_BYTES) {
      finish({ kind: 'too_large', keepAlive: false });
      return;
    }
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onAborted);
    stream.once('close', onAborted);
  });
}
