/**
 * One key cannot slow another down at the input checks, through HTTP on Express and Koa: every job creation's audio
 * is probed and decoded to measure it on the host's two media command children, shared by all keys. One key posts 12
 * videos at once, each with 5 minutes of MP3 to decode (and each probe held 1 s by a logging ffprobe, so that the
 * burst's checks are still running when the other key comes, however fast the machine), while another key posts one: the other key's check goes next
 * (keys take turns), not after the whole burst; the burst gets 201 for what fits its queue
 * (`concurrency.maxQueuedRequestsPerKey`) and 429 `too_many_requests` with `Retry-After` for the rest; nothing
 * answers 500 or `timeout` (the decode's deadline counts its own work, not the wait). With
 * `maxQueuedRequestsPerKey: 0` (every probe held 2 s by a logging ffprobe, so that the burst's checks are surely
 * running when the other key comes, however fast the machine), the burst's key is refused past the checks it has
 * running, but another key's check still waits for its turn (it was refused too, as if every key were over its
 * share, before the fix). A request whose client leaves while its check waits for its turn is dropped: its check
 * never runs (counted with an ffprobe that logs its runs; before, it ran once a child was free, for nobody).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADAPTERS, KEYS, makeApp, SUITE_TIMEOUT_MS, type Adapter, type AppOptions, type TestApp } from '../helpers/apps.js';
import { assertError, waitFor } from '../helpers/checks.js';
import { countingFfprobe } from '../helpers/counting-ffprobe.js';
import { firstAvatarId } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { ffmpeg } from '../helpers/media.js';

const h = useHarness();
const BURST = 12;
const QUEUED_PER_KEY = 6;

let made: Promise<void> | undefined;
/** 299 s of a tone as a 128 kb/s MP3 (its check decodes all of it: about half a second of CPU). */
const makeLongMp3 = () =>
  (made ??= ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=220:duration=299:sample_rate=44100', '-ac', '2', '-c:a', 'libmp3lame', '-b:a', '128k', join(h.fixtures.dir, 'long.mp3')]));

/** An app whose ffprobe logs its runs and holds each probe of an input `delaySec` longer, whatever the machine's speed. */
interface SlowProbeApp {
  app: TestApp;
  /** How many inputs (not the built-in avatars' assets) have been probed so far. */
  inputProbes(): Promise<number>;
  close(): Promise<void>;
}

async function slowProbeApp(adapter: Adapter, delaySec: number, concurrency?: AppOptions['concurrency']): Promise<SlowProbeApp> {
  const dir = await mkdtemp(join(tmpdir(), 'va-slow-probes-'));
  const ffprobe = await countingFfprobe(dir, { delaySec, delayWhen: '/blobs/' });
  const app = await makeApp(adapter, { ffprobePath: ffprobe.path, ...(concurrency ? { concurrency } : {}) }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    app,
    inputProbes: async () => (await ffprobe.runs()).filter((args) => args.includes('-show_streams') && args.includes('/blobs/')).length,
    async close() {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once `slow` has two input checks running (each holding a media child). */
const twoChecksRunning = (slow: SlowProbeApp) => waitFor('two checks running', async () => ((await slow.inputProbes()) === 2 ? true : undefined));

for (const adapter of ADAPTERS) {
  describe(`input checks over ${adapter}: keys take turns`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let slow: SlowProbeApp;
    before(async () => {
      await makeLongMp3();
      // Every probe of an input takes 1 s more: the burst's checks are still running and waiting when the other key
      // comes, however fast the machine.
      slow = await slowProbeApp(adapter, 1, { maxQueuedRequestsPerKey: QUEUED_PER_KEY });
      app = slow.app;
    });
    after(() => slow?.close());

    it(`serves another key next during a burst of ${BURST} long audio inputs; the burst gets 201 and 429, never 500`, async () => {
      const [burstAvatar, otherAvatar] = await Promise.all([firstAvatarId(app, KEYS.a), firstAvatarId(app, KEYS.b)]);
      const audioUrl = h.files.url('long.mp3');
      const t0 = performance.now();
      const answered: { who: string; status: number; atMs: number }[] = [];
      const post = (who: string, key: string, avatarId: string) =>
        app.http
          .post('/v2/2davatar')
          .set('key', key)
          .send({ audioUrl, avatarId })
          .then((res) => {
            answered.push({ who, status: res.status, atMs: performance.now() - t0 });
            return res;
          });
      const burst = Array.from({ length: BURST }, () => post('burst', KEYS.a, burstAvatar));
      // The burst's checks are running and waiting before the other key's request arrives.
      await twoChecksRunning(slow);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const other = await post('other', KEYS.b, otherAvatar);
      const answers = await Promise.all(burst);

      assert.equal(other.status, 201, other.text);
      const created = answers.filter((res) => res.status === 201);
      const refused = answers.filter((res) => res.status === 429);
      assert.equal(created.length + refused.length, BURST, `only 201 and 429: ${answers.map((res) => res.status).join(', ')}`);
      for (const res of refused) {
        assertError(res, 429, 'too_many_requests');
        assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After is set');
      }
      assert.ok(created.length >= QUEUED_PER_KEY, `${created.length} of the burst created`);
      const otherAt = answered.find((a) => a.who === 'other')!.atMs;
      const createdAfter = answered.filter((a) => a.who === 'burst' && a.status === 201 && a.atMs > otherAt).length;
      console.log(
        `${adapter}: burst of ${BURST} answered ${created.length}× 201, ${refused.length}× 429; the other key answered at ${(otherAt / 1000).toFixed(1)} s, ` +
          `before ${createdAfter} of the burst's 201s (at ${answered.filter((a) => a.who === 'burst' && a.status === 201).map((a) => (a.atMs / 1000).toFixed(1)).join(', ')} s)`,
      );
      // First come, first served, it would be answered after every check of the burst that was queued before it.
      assert.ok(createdAfter >= created.length - 4, `the other key was answered before only ${createdAfter} of the burst's ${created.length} creations`);
    });
  });

  describe(`input checks over ${adapter} with maxQueuedRequestsPerKey 0`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let slow: SlowProbeApp;
    before(async () => {
      // Every probe of an input takes 2 s more: the burst's two checks hold both media children that long, whatever the load.
      slow = await slowProbeApp(adapter, 2, { maxQueuedRequestsPerKey: 0 });
      app = slow.app;
    });
    after(() => slow?.close());

    it('refuses only the key with checks in flight: another key arriving while both children are busy gets 201', async () => {
      const [burstAvatar, otherAvatar] = await Promise.all([firstAvatarId(app, KEYS.a), firstAvatarId(app, KEYS.b)]);
      const audioUrl = h.url('speech.wav');
      const createdAt: number[] = [];
      const post = (key: string, avatarId: string) => app.http.post('/v2/2davatar').set('key', key).send({ audioUrl, avatarId });
      const burst = Array.from({ length: 4 }, () =>
        post(KEYS.a, burstAvatar).then((res) => {
          if (res.status === 201) createdAt.push(performance.now());
          return res;
        }),
      );
      // Two of the burst's checks hold both children (each probe waits 2 s), the rest is refused.
      await twoChecksRunning(slow);
      const otherSentAt = performance.now();
      const otherAnswer = post(KEYS.b, otherAvatar);
      const [answers, other] = await Promise.all([Promise.all(burst), otherAnswer]);
      const statuses = answers.map((res) => res.status);
      assert.ok(statuses.every((status) => status === 201 || status === 429), statuses.join(', '));
      assert.ok(statuses.includes(429), `the burst's key was refused past its running checks: ${statuses.join(', ')}`);
      assert.ok(createdAt.some((at) => at > otherSentAt), 'a check of the burst was still running when the other key came');
      assert.equal(other.status, 201, other.text);
    });
  });

  describe(`input checks over ${adapter}: a request whose client left`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    let slow: SlowProbeApp;
    before(async () => {
      // Every probe of an input takes 2 s more: two checks hold both media children that long, whatever the load.
      slow = await slowProbeApp(adapter, 2);
      app = slow.app;
    });
    after(() => slow?.close());

    it('drops its check waiting for its turn: it never runs', async () => {
      const avatarId = await firstAvatarId(app, KEYS.a);
      const body = JSON.stringify({ audioUrl: h.url('speech.wav'), avatarId });
      // Sent now (a supertest request is sent once it is awaited or `then` is called).
      const post = () => app.http.post('/v2/2davatar').set('key', KEYS.a).set('content-type', 'application/json').send(body).then((res) => res);
      const running = [post(), post()];
      await twoChecksRunning(slow);
      // A third request of the key waits for its turn when its client leaves.
      const left = httpRequest(`${app.origin}/v2/2davatar`, { method: 'POST', headers: { key: KEYS.a, 'content-type': 'application/json' } });
      const leftError = new Promise((resolve) => left.on('error', resolve));
      left.end(body);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(await slow.inputProbes(), 2, 'the third check waits');
      left.destroy();
      await leftError;
      const answers = await Promise.all(running);
      assert.deepEqual(answers.map((res) => res.status), [201, 201], answers.map((res) => res.text).join('\n'));
      // Its turn came when the first child was free, a while ago now.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await slow.inputProbes(), 2, 'the check of the request whose client left never ran');
      const again = await post();
      assert.equal(again.status, 201, again.text);
      assert.equal(await slow.inputProbes(), 3);
    });
  });
}
