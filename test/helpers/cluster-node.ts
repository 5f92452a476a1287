/**
 * One process of the multi-process queue test (test/queue/cluster.test.ts), started with
 * `node --import tsx test/helpers/cluster-node.ts`. Settings come from the environment:
 *
 * - ROLE: `api` (Express on 127.0.0.1, a free port) or `worker`;
 * - REDIS_URL, NAMESPACE: the shared Redis and this test run's namespace;
 * - DATA_DIR: this process's folder (work folders; with BLOB_STORE=fs also the blobs, then shared by all);
 * - BLOB_STORE: `s3` (S3_OPTIONS: the middleware's `s3` option as JSON; nothing shared on disk) or `fs`;
 * - RUNS_FILE: each engine run appends `start <pid> <input seconds>` and `end <pid> <input seconds>` to it
 *   (the test gives every job an input of its own length);
 * - RUN_MS: how long a run takes (default 1 000);
 * - API_KEYS (comma-separated), STALE_MS (retention.staleJobMs).
 *
 * Prints `READY <port>` (port 0 for a worker) once the instance answers, and closes on SIGTERM.
 */
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { virtualAnchor, type VirtualAnchorOptions } from '../../src/index.js';
import type { EngineContext, SeparationInput, SeparationOutput } from '../../src/domain/engines.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { FakeSeparationEngine } from './engines.js';

const env = process.env;
const runsFile = env.RUNS_FILE!;

/** The separation double, logging every run's start and end with this process's pid. */
class LoggedSeparation extends FakeSeparationEngine {
  override async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    appendFileSync(runsFile, `start ${process.pid} ${input.durationSec}\n`);
    const output = await super.separate(input, context);
    appendFileSync(runsFile, `end ${process.pid} ${input.durationSec}\n`);
    return output;
  }
}

const blobs = env.BLOB_STORE ?? 's3';
if (blobs !== 'fs' && blobs !== 's3') throw new Error(`unknown BLOB_STORE ${blobs}`);

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
  ...(blobs === 's3' ? { s3: JSON.parse(env.S3_OPTIONS!) as VirtualAnchorOptions['s3'] } : {}),
  backends: {
    ...(blobs === 'fs' ? { blobStore: new FsBlobStore(env.DATA_DIR!) } : {}),
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
