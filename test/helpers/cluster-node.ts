/**
 * One process of the multi-process queue test (test/queue/cluster.test.ts), started with
 * `node --import tsx test/helpers/cluster-node.ts`. Settings come from the environment:
 *
 * - ROLE: `api` (Express on 127.0.0.1, a free port) or `worker`;
 * - REDIS_URL, NAMESPACE: the shared Redis and this test run's namespace;
 * - DATA_DIR: the blob store's folder (BLOB_STORE=fs, the only one for now: the S3 store takes its place later);
 * - RUNS_FILE: each engine run appends `start <pid> <input path>` and `end <pid> <input path>` to it;
 * - RUN_MS: how long a run takes (default 1 000);
 * - API_KEYS (comma-separated), STALE_MS (retention.staleJobMs).
 *
 * Prints `READY <port>` (port 0 for a worker) once the instance answers, and closes on SIGTERM.
 */
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { virtualAnchor, type VirtualAnchorOptions } from '../../src/index.js';
import type { EngineContext, SeparationInput, SeparationOutput } from '../../src/inference/engines.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { FakeSeparationEngine } from './engines.js';

const env = process.env;
const runsFile = env.RUNS_FILE!;

/** The separation double, logging every run's start and end with this process's pid. */
class LoggedSeparation extends FakeSeparationEngine {
  override async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    appendFileSync(runsFile, `start ${process.pid} ${input.audioPath}\n`);
    const output = await super.separate(input, context);
    appendFileSync(runsFile, `end ${process.pid} ${input.audioPath}\n`);
    return output;
  }
}

function blobStore(dataDir: string) {
  if ((env.BLOB_STORE ?? 'fs') !== 'fs') throw new Error(`unknown BLOB_STORE ${env.BLOB_STORE}`);
  return new FsBlobStore(dataDir);
}

const role = env.ROLE as 'api' | 'worker';
const options: VirtualAnchorOptions = {
  role,
  apiKeys: (env.API_KEYS ?? '').split(','),
  redis: env.REDIS_URL,
  redisNamespace: env.NAMESPACE,
  dataDir: env.DATA_DIR,
  signingSecret: 'cluster-test-signing-secret-0123456789',
  allowPrivateUrls: true,
  logger: false,
  concurrency: { engines: 2, jobsPerKey: 1 },
  retention: { staleJobMs: Number(env.STALE_MS ?? 8_000) },
  backends: {
    blobStore: blobStore(env.DATA_DIR!),
    separation: new LoggedSeparation({ delayMs: Number(env.RUN_MS ?? 1_000) }),
    lipSync: false,
    avatarRenderer: false,
  },
};

const media = virtualAnchor(options);
await media.instance.ready();
let port = 0;
if (role === 'api') {
  const app = express();
  app.use(media);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((done) => server.once('listening', done));
  port = (server.address() as AddressInfo).port;
}
process.stdout.write(`READY ${port}\n`);
process.on('SIGTERM', () => {
  void media.instance.close().then(() => process.exit(0));
});
