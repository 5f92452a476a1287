import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a {@link WebhookReceiver} got. */
export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status it answered. */
  answered: number;
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
      receiver.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      response.writeHead(answered).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
