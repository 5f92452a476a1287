import { createServer, type Server } from 'node:http';
import express from 'express';
import { virtualAnchor, type VirtualAnchor } from '../../src/index.js';
import type { MountSettings } from '../../src/testing/index.js';

/** Starts `server` on a free loopback port. */
export async function listen(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Mounts an instance in a fresh Express app as a host would, for the adapter contract suite. */
export function mountExpress(instance: VirtualAnchor, { jsonBodyParser, fallback }: MountSettings): Promise<Server> {
  const app = express();
  if (jsonBodyParser) app.use(express.json());
  app.use(virtualAnchor(instance));
  app.use((req, res) => fallback(req, res));
  return listen(createServer(app));
}
