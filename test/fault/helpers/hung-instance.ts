/**
 * A host process for the kill -9 test: an Express app mounting an instance on the data dir given as
 * the first argument, with a lip-sync engine that hangs forever. Prints `{"port":N}` once listening.
 * Run with `node --import tsx`; the test SIGKILLs it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { virtualAnchor } from '../../../src/index.js';
import { HangingLipSyncEngine } from '../../helpers/engines.js';
import { BINARIES } from '../../helpers/media.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: hung-instance.ts <dataDir>');
const middleware = virtualAnchor({
  apiKeys: ['test-key-alpha'],
  dataDir,
  logger: false,
  allowPrivateUrls: true,
  ...BINARIES,
  backends: { lipSync: new HangingLipSyncEngine(), separation: false, avatarRenderer: false },
});
await middleware.instance.ready();
const server = createServer(express().use(middleware));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
