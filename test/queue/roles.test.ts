import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { createVirtualAnchor, OptionsError } from '../../src/index.js';
import { ADAPTERS, KEYS, makeApp } from '../helpers/apps.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';

const run = promisify(execFile);
const namespace = `va-test-roles-${randomBytes(4).toString('hex')}`;

/** The native addons a fresh process of `role` has loaded once its instance is ready (test/helpers/role-probe.ts). */
async function addonsOf(role: 'all' | 'api'): Promise<string[]> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/helpers/role-probe.ts'], {
    env: { ...process.env, ROLE: role, REDIS_URL: SHARED_REDIS_URL, NAMESPACE: namespace },
    timeout: 60_000,
  });
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { addons: string[] }).addons;
}

const native = (addons: string[]) => ({
  onnxruntime: addons.some((path) => path.includes('onnxruntime')),
  canvas: addons.some((path) => path.includes('canvas')),
});

describe('roles', { timeout: 120_000 }, () => {
  after(async () => {
    await deleteRedisNamespace(namespace);
  });

  it('neither an api process nor one running the engines loads onnxruntime or canvas: the engines run them in child processes', async () => {
    assert.deepEqual(native(await addonsOf('api')), { onnxruntime: false, canvas: false });
    assert.deepEqual(native(await addonsOf('all')), { onnxruntime: false, canvas: false });
  });

  it('refuses api and worker roles with the in-process queue', () => {
    for (const options of [{ role: 'api' as const }, { role: 'worker' as const }, { role: 'worker' as const, redis: SHARED_REDIS_URL, queue: 'memory' as const }]) {
      assert.throws(
        () => createVirtualAnchor({ apiKeys: ['k'], ...options }),
        (error: unknown) => error instanceof OptionsError && error.issues.some((issue) => issue.startsWith('role:')),
      );
    }
    assert.throws(
      () => createVirtualAnchor({ apiKeys: ['k'], queue: 'bullmq' }),
      (error: unknown) => error instanceof OptionsError && error.issues.some((issue) => issue.startsWith('queue:')),
    );
  });

  for (const adapter of ADAPTERS) {
    it(`a worker serves no API, only health and readiness (${adapter})`, async () => {
      const app = await makeApp(adapter, { role: 'worker', redis: SHARED_REDIS_URL, redisNamespace: namespace });
      try {
        const api = await app.http.get('/v2/avatar').set('key', KEYS.a);
        assert.equal(api.status, 404);
        assert.equal(api.headers['content-type']?.includes('application/json') && api.body?.error !== undefined, false, 'the host app answered, not the middleware');
        assert.equal((await app.http.get('/healthz')).status, 200);
        assert.equal((await app.http.get('/readyz')).status, 200);
      } finally {
        await app.close();
      }
    });
  }
});
