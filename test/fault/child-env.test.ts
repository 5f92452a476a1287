import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { killChild, startChild } from '../../src/inference/workers/child.js';

test('a child gets its default environment variables unless the host sets them, and its name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'va-child-env-'));
  try {
    const module = join(dir, 'echo-env.mjs');
    await writeFile(module, "process.send({ a: process.env.VA_TEST_A, b: process.env.VA_TEST_B, name: process.env.VIRTUAL_ANCHOR_CHILD });\n");
    process.env.VA_TEST_B = 'host';
    const child = startChild({ path: module, execArgv: [] }, { name: 'env probe', defaultEnv: { VA_TEST_A: 'default', VA_TEST_B: 'default' } });
    try {
      const [message] = (await once(child, 'message')) as [unknown];
      assert.deepEqual(message, { a: 'default', b: 'host', name: 'env probe' });
    } finally {
      await killChild(child);
    }
  } finally {
    delete process.env.VA_TEST_B;
    await rm(dir, { recursive: true, force: true });
  }
});
