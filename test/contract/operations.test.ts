/**
 * Contract of the operations surface: GET /healthz and /readyz (no key, under basePath), Prometheus metrics
 * at GET /metrics (parsed strictly, counters moved by a real job), `progress` on ongoing jobs, and a pino
 * logger as `logger`. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import {
  createVirtualAnchor,
  MemoryIdempotencyStore,
  MemoryJobStore,
  type CoreResponse,
  type EngineContext,
  type ErrorBody,
  type LipSyncInput,
  type VirtualAnchor,
} from '../../src/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, waitFor, waitForJob } from '../helpers/checks.js';
import { FakeLipSyncEngine, HeldAvatarRenderer } from '../helpers/engines.js';
import { useHarness } from '../helpers/harness.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';

const h = useHarness();

/** A job store whose reads can be made to fail, as a Redis that went away would. */
class FlakyJobStore extends MemoryJobStore {
  down = false;
  /** Reads never answer (a Redis that stopped replying). */
  silent = false;
  override async get(uid: string, owner?: string) {
    if (this.silent) return new Promise<never>(() => undefined);
    if (this.down) throw new Error('connection refused');
    return super.get(uid, owner);
  }
}

/** An idempotency store that can be made to fail, as a separate Redis that went away would. */
class FlakyIdempotencyStore extends MemoryIdempotencyStore {
  down = false;
  override async release(key: string) {
    if (this.down) throw new Error('idempotency redis refused');
    return super.release(key);
  }
}

/** A lip-sync double that reports a quarter done, then waits for the test before rendering. */
class QuarterThenHold extends FakeLipSyncEngine {
  reported = false;
  private opened!: () => void;
  private readonly held = new Promise<void>((resolve) => (this.opened = resolve));
  release(): void {
    this.opened();
  }
  override async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    context.onProgress({ done: 1, total: 4, unit: 'frames' });
    this.reported = true;
    await this.held;
    return super.render(input, context);
  }
}

for (const adapter of ADAPTERS) {
  describe(`operations over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let store: FlakyJobStore;
    let idempotencyStore: FlakyIdempotencyStore;
    let lipSync: QuarterThenHold;
    before(async () => {
      store = new FlakyJobStore();
      idempotencyStore = new FlakyIdempotencyStore();
      lipSync = new QuarterThenHold();
      app = await makeApp(adapter, { basePath: '/api', metrics: true, backends: { jobStore: store, idempotencyStore, lipSync } });
    });
    after(() => app.close());

    it('answers GET /healthz with 200 and no key', async () => {
      const res = await app.http.get('/api/healthz');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { status: 'ok' });
    });

    it('answers GET /readyz 200 while the stores answer and 503 `unavailable` naming the store when not', async () => {
      const ready = await app.http.get('/api/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.body, { status: 'ready' });
      store.down = true;
      try {
        const res = await app.http.get('/api/readyz');
        assertError(res, 503, 'unavailable');
        assert.match(res.body.error.message, /job store: connection refused/);
        assert.equal((await app.http.get('/api/healthz')).status, 200, 'liveness does not depend on the stores');
      } finally {
        store.down = false;
      }
      idempotencyStore.down = true;
      try {
        const res = await app.http.get('/api/readyz');
        assertError(res, 503, 'unavailable');
        assert.equal(res.body.error.message, 'not ready: idempotency store: idempotency redis refused');
      } finally {
        idempotencyStore.down = false;
      }
      assert.equal((await app.http.get('/api/readyz')).status, 200, 'ready again once it answers');
    });

    it('answers GET /readyz 503 naming the avatars still rendering, then 200 once each has assets or a logged failure', async () => {
      const renderer = new HeldAvatarRenderer(['Ava']);
      const logged: string[] = [];
      const logger = { info() {}, warn() {}, debug() {}, error: (message: string, fields?: object) => logged.push(`${message} ${JSON.stringify(fields)}`) };
      const held = await makeApp(adapter, { skipAvatarWait: true, logger, backends: { avatarRenderer: renderer } });
      try {
        const readiness = async () => {
          const res = await held.http.get('/readyz');
          return res.status === 200 ? 'ready' : (assertError(res, 503, 'unavailable'), res.body.error.message as string);
        };
        await waitFor('Amara to be held', async () => (renderer.holding === 'Amara' ? true : undefined));
        assert.equal(await readiness(), 'not ready: avatar assets still rendering: Amara, Ava, Kenji');
        const listed = await held.http.get('/v2/avatar').set('key', KEYS.c);
        assert.equal(listed.body.data[0].path, '', 'no link while the video renders');

        renderer.release('Amara');
        // Ava's thumbnail fails: logged, and not waited for.
        await waitFor('Kenji to be held', async () => (renderer.holding === 'Kenji' ? true : undefined));
        assert.equal(await readiness(), 'not ready: avatar assets still rendering: Kenji');
        assert.equal(logged.filter((line) => line.startsWith('avatar asset generation failed') && line.includes('ava')).length, 1, logged.join('\n'));

        renderer.release('Kenji');
        assert.equal(await waitFor('ready', async () => ((await readiness()) === 'ready' ? 'ready' : undefined)), 'ready');
        const ready = await held.http.get('/readyz');
        assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }]);
        const avatars = (await held.http.get('/v2/avatar').set('key', KEYS.c)).body.data as { name: string; path: string; thumbnailGenerationStatus: string }[];
        assert.deepEqual(
          avatars.map((avatar) => [avatar.name, avatar.thumbnailGenerationStatus, avatar.path !== '']),
          [['Amara', 'completed', true], ['Ava', 'error', false], ['Kenji', 'completed', true]],
        );
      } finally {
        renderer.release('Amara');
        renderer.release('Kenji');
        await held.close();
      }
    });

    it('reports progress (0 to 1) while ongoing and none once completed; metrics count the job', async () => {
      const avatars = await app.http.get('/api/v2/avatar').set('key', KEYS.c);
      const avatarId = avatars.body.data[0].uid as string;
      const created = await app.http.post('/api/v2/2davatar').set('key', KEYS.c).send({ audioUrl: h.url('speech.mp3'), avatarId });
      assert.equal(created.status, 201, created.text);
      const uid = created.body[0].uid as string;
      assert.equal(created.body[0].progress, undefined, 'a pending job has no progress');
      try {
        await waitFor('the engine to report', async () => (lipSync.reported ? true : undefined));
        const ongoing = await waitFor('progress 0.25', async () => {
          const res = await app.http.get(`/api/v2/2davatar/${uid}`).set('key', KEYS.c);
          return res.body.progress === 0.25 ? res.body : undefined;
        });
        assert.equal(ongoing.status, 'ongoing');
        const listed = await app.http.get('/api/v2/2davatar?status=ongoing').set('key', KEYS.c);
        assert.equal(listed.body.data[0].progress, 0.25);
      } finally {
        lipSync.release();
      }
      const done = await waitForJob(app, `/api/v2/2davatar/${uid}`, KEYS.c);
      assert.equal(done.status, 'completed');
      assert.equal('progress' in done, false, 'a completed job has no progress');

      const res = await app.http.get('/api/metrics');
      assert.equal(res.status, 200, res.text);
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const families = parsePrometheusText(res.text);
      const kind = { kind: 'avatarVideo' };
      for (const status of ['pending', 'ongoing', 'completed']) {
        assert.equal(sampleValue(families, 'virtual_anchor_jobs_total', { ...kind, status }), 1, `jobs_total ${status}`);
      }
      assert.equal(families.get('virtual_anchor_jobs_total')?.type, 'counter');
      assert.equal(families.get('virtual_anchor_job_duration_seconds')?.type, 'histogram');
      assert.equal(sampleValue(families, 'virtual_anchor_job_duration_seconds_count', { ...kind, status: 'completed' }), 1);
      assert.ok(sampleValue(families, 'virtual_anchor_job_duration_seconds_sum', { ...kind, status: 'completed' })! > 0);
      assert.equal(sampleValue(families, 'virtual_anchor_engine_realtime_factor_count', kind), 1);
      assert.equal(sampleValue(families, 'virtual_anchor_queue_depth', kind), 0);
      assert.equal(sampleValue(families, 'virtual_anchor_queue_depth', { kind: 'separation' }), 0);
      assert.equal(families.get('virtual_anchor_webhook_deliveries_total')?.type, 'counter');
    });

    it('documents the operations routes and serves no metrics when they are off', async () => {
      const doc = (await app.http.get('/api/v1/openapi.json')).body;
      for (const path of ['/healthz', '/readyz', '/metrics']) assert.ok(doc.paths[path]?.get, `${path} in the document`);
      const plain = await makeApp(adapter);
      try {
        assert.equal((await plain.http.get('/metrics')).status, 404);
        assert.equal((await plain.http.get('/v1/openapi.json')).body.paths['/metrics'], undefined);
      } finally {
        await plain.close();
      }
    });
  });
}

describe('operations in one process', () => {
  it('gives each instance its own registry, or uses the one given', async () => {
    const register = new Registry();
    const options = { apiKeys: ['k'], logger: false as const, backends: { lipSync: false as const, separation: false as const, avatarRenderer: false as const } };
    const first = createVirtualAnchor({ ...options, dataDir: `${h.fixtures.dir}/ops-a`, metrics: true });
    const second = createVirtualAnchor({ ...options, dataDir: `${h.fixtures.dir}/ops-b`, metrics: { register } });
    try {
      await Promise.all([first.ready(), second.ready()]);
      assert.ok(register.getSingleMetric('virtual_anchor_jobs_total'), 'metrics added to the given registry');
      assert.throws(() => createVirtualAnchor({ ...options, dataDir: `${h.fixtures.dir}/ops-c`, metrics: { register } }), /already been registered/);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('is live but not ready while starting, after a failed start, and while the job store does not answer', async () => {
    const options = { apiKeys: ['k'], logger: false as const, backends: { lipSync: false as const, separation: false as const, avatarRenderer: false as const } };
    const get = (instance: VirtualAnchor, path: string) =>
      instance.handle({ method: 'GET', path, query: new URLSearchParams(), headers: {}, origin: 'http://x', mountPath: '', bodyStream: Readable.from([]) });
    const body = (response: CoreResponse | undefined) => [response?.status, response?.kind === 'json' ? response.body : undefined];

    const store = new FlakyJobStore();
    const unreachable = createVirtualAnchor({ ...options, dataDir: `${h.fixtures.dir}/ops-silent`, backends: { ...options.backends, jobStore: store, idempotencyStore: new MemoryIdempotencyStore() } });
    const failed = createVirtualAnchor({ ...options, dataDir: `${h.fixtures.dir}/ops-failed`, avatars: { directory: `${h.fixtures.dir}/no-such-folder` } });
    try {
      assert.deepEqual(body(await get(unreachable, '/readyz')), [503, { error: { code: 'unavailable', message: 'the service is starting' } }]);
      await unreachable.ready();
      store.silent = true;
      assert.deepEqual(body(await get(unreachable, '/healthz')), [200, { status: 'ok' }]);
      const [status, error] = body(await get(unreachable, '/readyz')) as [number, ErrorBody];
      assert.equal(status, 503);
      assert.equal(error.error.message, 'not ready: job store: no answer within 2000 ms');

      await assert.rejects(failed.ready());
      assert.deepEqual(body(await get(failed, '/healthz')), [200, { status: 'ok' }]);
      const [failedStatus, failedError] = body(await get(failed, '/readyz')) as [number, ErrorBody];
      assert.deepEqual([failedStatus, failedError.error.code], [503, 'unavailable']);
      assert.match(failedError.error.message, /^the service failed to start: /);
    } finally {
      store.silent = false;
      await Promise.all([failed.close(), unreachable.close()]);
    }
  });

  it('calls a pino logger its way, so the fields reach the log line', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const instance = createVirtualAnchor({
      apiKeys: ['k'],
      dataDir: `${h.fixtures.dir}/ops-pino`,
      logger: pino({ level: 'info' }, sink),
      backends: { lipSync: false, separation: false, avatarRenderer: false },
    });
    try {
      await instance.ready();
      const engines = await waitFor('the engines log line', async () => lines.find((line) => line.msg === 'engines'));
      assert.equal(engines.lipSync, false);
      assert.equal(engines.separation, false);
    } finally {
      await instance.close();
    }
  });
});
