/**
 * A process of the job-kind test (test/contract/job-kinds.test.ts) that the test kills: an Express app with the
 * test-only `echo` kind, on the shared Redis (job store; the in-process queue) and a data folder shared with the
 * test, whose echo engine never finishes. Started with `node --import tsx test/helpers/echo-node.ts`; settings from
 * the environment: REDIS_URL, NAMESPACE, DATA_DIR, API_KEY, SIGNING_SECRET, STALE_MS. Prints `READY <port>`.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { virtualAnchor } from '../../src/index.js';
import { ECHO_ENGINE, EchoEngine, echoKind } from './echo-kind.js';
import { BINARIES } from './media.js';

const env = process.env;
const media = virtualAnchor({
  apiKeys: [env.API_KEY!],
  redis: env.REDIS_URL,
  redisNamespace: env.NAMESPACE,
  queue: 'memory',
  dataDir: env.DATA_DIR,
  signingSecret: env.SIGNING_SECRET,
  allowPrivateUrls: true,
  logger: false,
  ...BINARIES,
  avatars: { builtIn: false },
  jobKinds: [echoKind],
  retention: { staleJobMs: Number(env.STALE_MS) },
  backends: { lipSync: false, separation: false, avatarRenderer: false, photoRenderer: false, faceDetector: false },
});
const engine = new EchoEngine();
engine.hold();
media.instance.container.register(ECHO_ENGINE, { useValue: engine });
await media.instance.ready();
const app = express();
app.use(media);
const server = app.listen(0, '127.0.0.1');
await new Promise((done) => server.once('listening', done));
process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
