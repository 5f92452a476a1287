import { after, before } from 'node:test';
import { closeAllApps } from './apps.js';
import { startFileServer, type FileServer } from './file-server.js';
import { fixtures, removeFixtures, type FixtureName, type Fixtures } from './media.js';

/** What a contract test file shares: generated fixtures and a server that serves them as input URLs. */
export interface Harness {
  fixtures: Fixtures;
  files: FileServer;
  /** URL of a fixture on the file server. */
  url(name: FixtureName | 'missing.wav'): string;
  /** Local path of a fixture (for uploads). */
  path(name: FixtureName): string;
}

/**
 * Registers file-level `before`/`after` hooks: fixtures and the file server start once, and every
 * app, the server and the fixtures are cleaned up at the end. Read the returned object inside tests.
 */
export function useHarness(): Harness {
  const harness = {} as Harness;
  before(async () => {
    harness.fixtures = await fixtures();
    harness.files = await startFileServer(harness.fixtures.dir);
    harness.url = (name) => harness.files.url(name);
    harness.path = (name) => harness.fixtures.path(name);
  });
  after(async () => {
    await closeAllApps();
    await harness.files?.close();
    await removeFixtures();
  });
  return harness;
}
