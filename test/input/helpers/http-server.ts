import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A throwaway HTTP server on 127.0.0.1. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Requests received so far (paths). */
  hits: string[];
  close(): Promise<void>;
}

/** Starts a server on an ephemeral port of `host` (default 127.0.0.1). */
export async function startServer(handler: RequestListener, host = '127.0.0.1'): Promise<TestServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
