import { randomBytes } from 'node:crypto';
import { request } from 'node:http';

/** An upload whose body is held back until {@link SlowUpload.finish}: a request that stays in flight. */
export interface SlowUpload {
  /** Settles with the response, which may come before the body is complete (e.g. a 429). */
  response: Promise<{ status: number; body: unknown; headers: Record<string, string | string[] | undefined> }>;
  /** Sends the rest of the body. */
  finish(): void;
}

/**
 * Starts `POST <origin><path>` as `multipart/form-data` with a file part named `file` holding `data`,
 * sends the headers and the first bytes, and holds the rest.
 */
export function slowUpload(origin: string, path: string, key: string, data: Buffer, fileName = 'speech.mp3'): SlowUpload {
  const boundary = `----contract${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, data, tail]);
  const split = head.length + Math.min(1024, data.length >> 1);
  const req = request(`${origin}${path}`, {
    method: 'POST',
    agent: false,
    headers: { key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
  });
  // The server may answer (and stop reading) before the body is sent: writes after that must not throw.
  req.on('error', () => undefined);
  const response = new Promise<Awaited<SlowUpload['response']>>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  response.catch(() => undefined);
  req.flushHeaders();
  req.write(body.subarray(0, split));
  let finished = false;
  return {
    response,
    finish() {
      if (finished) return;
      finished = true;
      if (!req.destroyed) req.end(body.subarray(split));
    },
  };
}
