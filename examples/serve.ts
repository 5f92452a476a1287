import type { Server } from 'node:http';
import type { VirtualAnchor } from '../src/index.js';

/** Starts an example app, prints where it listens (and the development key), and closes cleanly on SIGINT/SIGTERM. */
export function serve(
  framework: string,
  listen: (port: number, ready: () => void) => Server,
  instance: VirtualAnchor,
  settings: { port: number; devKey?: string },
): void {
  const { port, devKey } = settings;
  const server = listen(port, () => {
    console.log(`virtual-anchor (${framework}) listening on http://localhost:${port}`);
    if (devKey) console.log(`development API key (set VIRTUAL_ANCHOR_API_KEYS to choose your own): ${devKey}`);
    console.log(`demo page: http://localhost:${port}/  OpenAPI document: http://localhost:${port}/v1/openapi.json`);
    console.log(`health: http://localhost:${port}/healthz  readiness: http://localhost:${port}/readyz`);
    if (instance.options.metrics) console.log(`metrics: http://localhost:${port}${instance.options.metrics.path}`);
  });
  const shutdown = () => {
    server.close();
    void instance.close().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
