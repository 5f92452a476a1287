/**
 * Starts an instance with the built-in engines in the role ROLE (env), on REDIS_URL/NAMESPACE, waits until
 * it is ready, and prints the native addons the process has loaded (`process.report`'s shared objects) as
 * one JSON line: `{"addons": [...]}`. Used by test/queue/roles.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVirtualAnchor } from '../../src/index.js';

const dataDir = await mkdtemp(join(tmpdir(), 'va-role-'));
const instance = createVirtualAnchor({
  role: process.env.ROLE as 'all' | 'api' | 'worker',
  apiKeys: ['role-probe-key'],
  redis: process.env.REDIS_URL,
  redisNamespace: process.env.NAMESPACE,
  dataDir,
  logger: false,
  avatars: { builtIn: false },
});
await instance.ready();
// Engines are made during start-up; give a lazy import a moment to land.
await new Promise((done) => setTimeout(done, 200));
const report = process.report.getReport() as { sharedObjects?: string[] };
const addons = (report.sharedObjects ?? []).filter((path) => path.endsWith('.node'));
process.stdout.write(`${JSON.stringify({ addons })}\n`);
await instance.close();
await rm(dataDir, { recursive: true, force: true });
process.exit(0);
