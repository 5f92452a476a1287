import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it answered. */
  answered: number;
  /** When its body had been read (epoch ms). */
  atMs: number;
}

/** A real webhook endpoint on 127.0.0.1 that records every POST and answers `statuses` in turn (then 204). */
export interface WebhookReceiver {
  url: string;
  received: ReceivedHook[];
  /** Statuses to answer next, in order (e.g. `[500]` fails the first delivery). */
  statuses: number[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(statuses: number[] = []): Promise<WebhookReceiver> {
  const receiver = { received: [] as ReceivedHook[], statuses: [...statuses] } as WebhookReceiver;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answered = receiver.statuses.shift() ?? 204;
      receiver.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered, atMs: Date.now() });
      response.writeHead(answered).end();
    });
  });
  return Object.assign(receiver, await listen(server));
}

/** A webhook endpoint on 127.0.0.1 that reads each request and never answers it (until closed). */
export interface SilentReceiver {
  url: string;
  /** Requests received so far. */
  received: number;
  /** Requests open now: read, never answered, not yet given up by the sender. */
  open: number;
  /** The most requests that were open at once. */
  mostOpen: number;
  close(): Promise<void>;
}

export async function startSilentReceiver(): Promise<SilentReceiver> {
  const receiver = { received: 0, open: 0, mostOpen: 0 } as SilentReceiver;
  const server = createServer((request) => {
    receiver.received += 1;
    receiver.open += 1;
    receiver.mostOpen = Math.max(receiver.mostOpen, receiver.open);
    request.resume();
    request.socket.once('close', () => (receiver.open -= 1));
  });
  return Object.assign(receiver, await listen(server));
}

/** Listens on a free port of 127.0.0.1: the URL of its `/hooks` path, and a `close` that cuts open connections. */
async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
