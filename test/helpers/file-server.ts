import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const TYPES: Record<string, string> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.png': 'image/png',
  '.txt': 'text/plain',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.flac': 'audio/flac',
  '.ogg': 'audio/ogg',
};

/** A static file server on 127.0.0.1 (an ephemeral port) serving the files of one folder by name. */
export interface FileServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** URL of a file of the folder. */
  url(name: string): string;
  /** How many requests asked for `url` (one of {@link url}'s, a query included) so far. */
  requests(url: string): number;
  close(): Promise<void>;
}

/** Serves `dir`: `GET /<name>` gives the file (content type by extension) or 404. */
export async function startFileServer(dir: string): Promise<FileServer> {
  const asked = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const name = basename(decodeURIComponent(new URL(path, 'http://x').pathname));
    asked.set(path, (asked.get(path) ?? 0) + 1);
    const file = join(dir, name);
    stat(file).then(
      async (info) => {
        if (!info.isFile()) throw new Error('not a file');
        res.writeHead(200, {
          'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
          'content-length': String(info.size),
        });
        await pipeline(createReadStream(file), res).catch(() => res.destroy());
      },
      () => {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (name) => `${origin}/${encodeURIComponent(name)}`,
    requests: (url) => {
      const { pathname, search } = new URL(url);
      return asked.get(pathname + search) ?? 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
