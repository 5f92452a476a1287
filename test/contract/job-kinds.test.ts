/**
 * Adding a job kind: `echo` (test/helpers/echo-kind.ts) exists only in the tests, with a trivial engine registered
 * in the instance's container. Given to the middleware through the `jobKinds` option and nothing else, it gets its
 * create, list, get and cancel routes, its signed webhooks, its metrics, its OpenAPI entries, and recovery after a
 * killed process (a real child process on the shared Redis, SIGKILLed while it runs a job; an instance on the same
 * stores takes the job over and completes it). On Express and on Koa.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { createVirtualAnchor, OptionsError, TOKENS, verifyWebhook, type JobStore } from '../../src/index.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { assertError, download, waitFor, waitForJob } from '../helpers/checks.js';
import { ECHO_ENGINE, EchoEngine, echoKind } from '../helpers/echo-kind.js';
import { useHarness } from '../helpers/harness.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const h = useHarness();
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const KEY = KEYS.d;

/** Starts the echo app of test/helpers/echo-node.ts; resolves with its child process and origin once it is ready. */
function startEchoNode(env: Record<string, string>): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/echo-node.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the echo node exited (${code ?? signal}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const ready = /^READY (\d+)$/.exec(line);
      if (ready) resolve({ child, origin: `http://127.0.0.1:${ready[1]}` });
    });
  });
}

describe('job kinds given with the jobKinds option', () => {
  it('are refused at creation when a name, a collection path or a webhook name is taken', () => {
    const refused = (kind: object) => assert.throws(() => createVirtualAnchor({ apiKeys: ['k'], jobKinds: [kind as typeof echoKind] }), OptionsError);
    refused({ ...echoKind, kind: 'separation' });
    refused({ ...echoKind, api: { ...echoKind.api!, path: '/v1/sourceSeparations' } });
    refused({ ...echoKind, api: { ...echoKind.api!, webhook: { ...echoKind.api!.webhook!, type: 'avatarVideo' } } });
    refused({ ...echoKind, results: 'owner' });
    // Its metrics would be mixed with the avatar videos' (and the queue depth gauge of one label set twice, the last wins).
    refused({ ...echoKind, metricLabel: 'avatarVideo' });
  });

  it('are refused when one of their routes would be answered by another route of the table, or could never be reached', () => {
    const refused = (api: object, pattern: RegExp) =>
      assert.throws(() => createVirtualAnchor({ apiKeys: ['k'], jobKinds: [{ ...echoKind, api: { ...echoKind.api!, ...api } } as typeof echoKind] }), (error: unknown) => {
        assert.ok(error instanceof OptionsError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
    // Built-in routes that are not job kinds': the avatars, uploads, files, the OpenAPI document, health.
    refused({ path: '/v2/avatar' }, /GET \/v2\/avatar/);
    refused({ path: '/v1/uploads' }, /POST \/v1\/uploads/);
    refused({ path: '/healthz' }, /\/healthz/);
    // Under a built-in kind's item path: its GET /v2/2davatar/:id answers the list.
    refused({ path: '/v2/2davatar/echoes' }, /GET \/v2\/2davatar\/echoes/);
    // Paths and id names that no request can match.
    refused({ path: 'v1/echoes' }, /path/);
    refused({ path: '/v1/echoes/' }, /path/);
    refused({ idName: 'echo id' }, /idName/);
  });
});

for (const adapter of ADAPTERS) {
  describe(`a job kind that exists only in this test, over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let engine: EchoEngine;
    let receiver: WebhookReceiver;

    before(async () => {
      receiver = await startWebhookReceiver();
      engine = new EchoEngine();
      app = await makeApp(adapter, {
        jobKinds: [echoKind],
        metrics: true,
        webhooks: { secret: SECRET, pollMs: 100, retryDelaysMs: [300] },
        avatars: { builtIn: false },
      });
      app.instance.container.register(ECHO_ENGINE, { useValue: engine });
    });
    after(async () => {
      await app?.close();
      await receiver?.close();
    });

    const create = async (body: object) => {
      const res = await app.http.post('/v1/echoes').set('key', KEY).send(body);
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.length, 1);
      return res.body[0].uid as string;
    };

    it('gets its routes: create, get (its link serves the copy), list, 404 and 400 like every job resource', async () => {
      const uid = await create({ audioUrl: h.url('speech.wav') });
      const done = await waitForJob(app, `/v1/echoes/${uid}`, KEY);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const copy = await download(String(done.path));
      assert.equal(copy.status, 200);
      assert.deepEqual(Buffer.from(copy.body), await readFile(h.path('speech.wav')), 'the engine copied the input');
      const listed = await app.http.get('/v1/echoes').set('key', KEY);
      assert.equal(listed.status, 200);
      assert.ok((listed.body.data as { uid: string }[]).some((job) => job.uid === uid));
      assertError(await app.http.get(`/v1/echoes/${randomUUID()}`).set('key', KEY), 404, 'not_found');
      assert.equal((await app.http.get(`/v1/echoes/${randomUUID()}`).set('key', KEY)).body.error.message, 'echo job not found');
      assertError(await app.http.get(`/v1/echoes/${uid}`).set('key', KEYS.e), 404, 'not_found');
      assertError(await app.http.post('/v1/echoes').set('key', KEY).send({ audioUrl: 'not a url' }), 400, 'validation_failed', ['body.audioUrl']);
    });

    it('is canceled like every job: its engine stops and the job ends canceled', async () => {
      engine.hold();
      try {
        const uid = await create({ audioUrl: h.url('speech.wav') });
        await waitForJob(app, `/v1/echoes/${uid}`, KEY, ['ongoing']);
        const canceled = await app.http.post(`/v1/echoes/${uid}/cancel`).set('key', KEY);
        assert.equal(canceled.status, 200, canceled.text);
        assert.equal(canceled.body.status, 'error');
        assert.equal(canceled.body.errorReason.code, 'canceled');
        assert.equal(engine.signals.at(-1)?.aborted, true, 'the engine was told to stop');
        assertError(await app.http.post(`/v1/echoes/${uid}/cancel`).set('key', KEY), 409, 'conflict');
      } finally {
        engine.release();
      }
    });

    it('sends its signed webhook, `echo.completed`, whose data is the job as GET answers it', async () => {
      const uid = await create({ audioUrl: h.url('speech.wav'), webhookUrl: receiver.url });
      const hook = await waitFor('the echo webhook', async () => receiver.received.find((one) => one.body.includes(uid)));
      const event = verifyWebhook<{ type: string; data: Record<string, unknown> }>(SECRET, hook.headers, hook.body);
      assert.equal(event.type, 'echo.completed');
      const got = (await app.http.get(`/v1/echoes/${uid}`).set('key', KEY)).body as Record<string, unknown>;
      const { path: sentPath, ...sent } = event.data;
      const { path: gotPath, ...current } = got;
      assert.deepEqual(sent, current);
      assert.match(String(sentPath), /\/files\//);
      assert.match(String(gotPath), /\/files\//);
    });

    it('is counted in the metrics under its own kind label', async () => {
      const res = await app.http.get('/metrics');
      assert.equal(res.status, 200);
      const families = parsePrometheusText(res.text);
      assert.ok((sampleValue(families, 'virtual_anchor_jobs_total', { kind: 'echo', status: 'completed' }) ?? 0) >= 2);
      assert.equal(sampleValue(families, 'virtual_anchor_jobs_total', { kind: 'echo', status: 'error' }), 1);
      assert.equal(sampleValue(families, 'virtual_anchor_queue_depth', { kind: 'echo' }), 0);
      assert.ok((sampleValue(families, 'virtual_anchor_job_duration_seconds_count', { kind: 'echo', status: 'completed' }) ?? 0) >= 2);
    });

    it('has its OpenAPI entries: four operations, its schemas and its webhook', async () => {
      const doc = (await app.http.get('/v1/openapi.json')).body as {
        paths: Record<string, Record<string, { tags: string[]; operationId: string }>>;
        components: { schemas: Record<string, unknown> };
        webhooks: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(doc.paths['/v1/echoes'] ?? {}).sort(), ['get', 'post']);
      assert.deepEqual(Object.keys(doc.paths['/v1/echoes/{echo_id}'] ?? {}), ['get']);
      assert.deepEqual(Object.keys(doc.paths['/v1/echoes/{echo_id}/cancel'] ?? {}), ['post']);
      assert.deepEqual(doc.paths['/v1/echoes']!.post!.tags, ['Echo (test)']);
      for (const schema of ['CreateEcho', 'EchoCreated', 'Echo', 'EchoWebhookEvent']) assert.ok(doc.components.schemas[schema], schema);
      assert.ok(doc.webhooks.echoEnded, 'its webhook');
      assert.ok(doc.webhooks.sourceSeparationEnded, 'the built-in ones stay');
    });

    it('recovers after a killed process: another instance on the same stores takes the running job over and completes it', async () => {
      const namespace = `test-kinds-${randomBytes(4).toString('hex')}`;
      const dataDir = await mkdtemp(join(tmpdir(), 'va-kinds-'));
      const signingSecret = randomBytes(24).toString('hex');
      let node: { child: ChildProcess; origin: string } | undefined;
      let second: TestApp | undefined;
      try {
        node = await startEchoNode({ REDIS_URL: SHARED_REDIS_URL, NAMESPACE: namespace, DATA_DIR: dataDir, API_KEY: KEY, SIGNING_SECRET: signingSecret, STALE_MS: '1000' });
        const origin = node.origin;
        const created = await fetch(`${origin}/v1/echoes`, { method: 'POST', headers: { key: KEY, 'content-type': 'application/json' }, body: JSON.stringify({ audioUrl: h.url('speech.wav') }) });
        assert.equal(created.status, 201);
        const uid = ((await created.json()) as { uid: string }[])[0]!.uid;
        await waitFor('the job to run in the child', async () => {
          const job = (await (await fetch(`${origin}/v1/echoes/${uid}`, { headers: { key: KEY } })).json()) as { status: string };
          return job.status === 'ongoing' || undefined;
        });
        node.child.kill('SIGKILL');
        await new Promise((done) => node!.child.once('exit', done));

        const resumed = new EchoEngine();
        second = await makeApp(adapter, {
          dataDir,
          redis: SHARED_REDIS_URL,
          redisNamespace: namespace,
          queue: 'memory',
          signingSecret,
          jobKinds: [echoKind],
          avatars: { builtIn: false },
          retention: { staleJobMs: 1_000, sweepIntervalMs: 100 },
        });
        second.instance.container.register(ECHO_ENGINE, { useValue: resumed });
        const done = await waitForJob(second, `/v1/echoes/${uid}`, KEY, ['completed', 'error'], 20_000);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.equal(resumed.runs, 1, 'the second instance ran it');
        const record = await second.instance.container.resolve<JobStore>(TOKENS.JobStore).get(uid);
        assert.equal(record?.attempt, 2, 'as the next attempt of the killed run');
        assert.equal((await download(String(done.path))).status, 200);
      } finally {
        if (node && node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
        await second?.close();
        await deleteRedisNamespace(namespace);
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  });
}
