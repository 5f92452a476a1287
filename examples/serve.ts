import type { Server } from 'node:http';
import type { VirtualAnchor } from '../src/index.js';

/** The process exits this long after SIGINT/SIGTERM at the latest, whatever is still running. */
const EXIT_DEADLINE_MS = 15_000;

/**
 * Starts an example app, prints where it listens (and the development key), and shuts down on
 * SIGINT/SIGTERM: stops accepting connections, closes the instance (bounded by its
 * `shutdownTimeoutMs`) and exits; a second signal, or {@link EXIT_DEADLINE_MS}, exits at once.
 */
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
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: shutting down`);
    setTimeout(() => {
      console.error(`shutdown took longer than ${EXIT_DEADLINE_MS} ms: exiting now`);
      process.exit(1);
    }, EXIT_DEADLINE_MS).unref();
    server.close();
    server.closeIdleConnections();
    // close() never rejects and is bounded by shutdownTimeoutMs (it logs what it gave up on).
    void instance.close().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
