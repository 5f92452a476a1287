/**
 * Counts the Redis commands a batch of jobs costs (for the capacity model): one instance (role all, BullMQ queue,
 * Redis job store) runs N separation jobs (N from the environment, default 20) of a 200 ms engine double from 4
 * keys, while a MONITOR connection counts the commands naming this run's namespace: those sent by clients
 * (round trips) and those run inside Lua scripts. Run: `N=20 node --import tsx test/helpers/redis-ops-probe.ts`.
 * Status polls of the waiting loop are counted too (one GET each); subtract them for the per-job cost.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { virtualAnchor } from '../../src/index.js';
import { FakeSeparationEngine } from './engines.js';
import { fixtures } from './media.js';
import { startFileServer } from './file-server.js';
import { deleteRedisNamespace } from './redis-server.js';
import { countRedisCommands } from './redis-command-counter.js';

const N = Number(process.env.N ?? 20);
const ns = `va-ops-${randomBytes(3).toString('hex')}`;
const keys = ['k1-xxxxxxxx', 'k2-xxxxxxxx', 'k3-xxxxxxxx', 'k4-xxxxxxxx'];
const files = await startFileServer((await fixtures()).dir);
const media = virtualAnchor({
  apiKeys: keys, redis: 'redis://127.0.0.1:6379', redisNamespace: ns, dataDir: await mkdtemp(join(tmpdir(), 'va-ops-')),
  allowPrivateUrls: true, logger: false, concurrency: { engines: 2 },
  backends: { separation: new FakeSeparationEngine({ delayMs: 200 }), lipSync: false, avatarRenderer: false },
});
await media.instance.ready();
const app = express(); app.use(media);
const server = app.listen(0, '127.0.0.1'); await new Promise((d) => server.once('listening', d));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
await new Promise((d) => setTimeout(d, 1500));
const counter = await countRedisCommands('redis://127.0.0.1:6379', ns);
const { roundTrips: top, inScripts: lua } = counter;
const t0 = Date.now();
const uids: [string, string][] = [];
for (let i = 0; i < N; i++) {
  const key = keys[i % keys.length]!;
  const res = await fetch(`${base}/v1/sourceSeparations`, { method: 'POST', headers: { key, 'content-type': 'application/json' }, body: JSON.stringify({ audioUri: files.url('speech.wav') }) });
  const [c] = (await res.json()) as { uid: string }[]; uids.push([c!.uid, key]);
}
let polls = 0;
for (;;) {
  polls += uids.length;
  const sts = await Promise.all(uids.map(async ([u, k]) => ((await (await fetch(`${base}/v1/sourceSeparations/${u}`, { headers: { key: k } })).json()) as { status: string }).status));
  if (sts.every((s) => s === 'completed')) break;
  await new Promise((d) => setTimeout(d, 200));
}
const ms = Date.now() - t0;
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const batch = { topLevel: sum(top), inScripts: sum(lua), top: Object.fromEntries(top), lua: Object.fromEntries(lua) };
// Idle cost: 10 s with nothing queued.
counter.clear();
await new Promise((d) => setTimeout(d, 10_000));
counter.counting = false;
const jobCalls = batch.topLevel - polls;
console.log(JSON.stringify({ jobs: N, ms, statusPolls: polls, callsPerJob: jobCalls / N, scriptCommandsPerJob: batch.inScripts / N, batch, idle10s: { topLevel: sum(top), inScripts: sum(lua), top: Object.fromEntries(top) } }, null, 1));
await counter.close(); server.close(); await media.instance.close(); await files.close(); await deleteRedisNamespace(ns);
process.exit(0);
