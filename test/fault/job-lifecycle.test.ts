/**
 * Fault injection on the job life-cycle (issue #10, items 2, 3 and 8): engines that write nothing or
 * garbage, a work folder that cannot be made, a hung engine that ignores its signal, a job ended by
 * another writer, a result left by a job that never completed, and store writes outside the transition
 * table. Runs once per host framework; every job must end, and the host must keep answering.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MemoryJobStore, TOKENS, type AvatarVideoJob, type JobStore } from '../../src/index.js';
import { sourcesOf } from '../../src/domain/state-machine.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import {
  GarbageLipSyncEngine,
  GarbageSeparationEngine,
  HangingLipSyncEngine,
  SilentLipSyncEngine,
  SilentSeparationEngine,
} from '../helpers/engines.js';
import { useHarness } from '../helpers/harness.js';
import { RecordingBlobStore } from '../helpers/recording-blob-store.js';

const h = useHarness();
const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** The `errorReason` of a failed job body. */
function reasonOf(body: Record<string, unknown>): { code: string; message: string } {
  assert.equal(body.status, 'error', JSON.stringify(body));
  return body.errorReason as { code: string; message: string };
}

/** A job must reach a final state within this long here (the faults below resolve in well under a second). */
const FINAL_WITHIN_MS = 10_000;

/** The real blob store, except that changing an expiry fails (as a full or read-only disk would). */
class FailingExpiryBlobStore extends RecordingBlobStore {
  override async setExpiry(): Promise<void> {
    throw new Error('injected: setExpiry failed');
  }
}

describe('the job store follows the transition table only', () => {
  it('refuses a from list that contradicts the table, whatever the caller passes', async () => {
    const store = new MemoryJobStore();
    const at = new Date().toISOString();
    const job: AvatarVideoJob = {
      kind: 'avatarVideo',
      uid: randomUUID(),
      owner: 'owner',
      status: 'pending',
      createdAt: at,
      updatedAt: at,
      input: { audioUrl: 'http://example.com/a.mp3', avatarId: 'x', dangerousFlag: false, audio: { id: 'blob-0001', contentType: 'audio/mpeg', size: 1 }, durationSec: 1 },
    };
    await store.create(job);
    // pending → completed skips ongoing: not in the table.
    assert.equal(await store.transition(job.uid, ['pending'], 'completed'), undefined);
    assert.equal((await store.get(job.uid))?.status, 'pending');
    assert.ok(await store.transition(job.uid, ['pending'], 'ongoing'));
    assert.ok(await store.transition(job.uid, ['ongoing'], 'completed'));
    // A caller naming a final state as a source cannot move it.
    assert.equal(await store.transition(job.uid, ['completed'], 'error', { failure: { code: 'x', message: 'y' } }), undefined);
    assert.equal(await store.transition(job.uid, ['completed', 'ongoing'], 'ongoing'), undefined);
    assert.equal((await store.get(job.uid))?.status, 'completed');
  });
});

for (const adapter of ADAPTERS) {
  describe(`job life-cycle faults over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    it('an engine that resolves without writing its output: the job ends in error (invalid_output), the host lives', async () => {
      const app = await makeApp(adapter, { backends: { lipSync: new SilentLipSyncEngine(), separation: new SilentSeparationEngine() } });
      try {
        const avatarId = await firstAvatarId(app, KEYS.a);
        const video = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        const separation = await createSeparation(app, KEYS.a, h.url('speech.mp3'));
        const videoReason = reasonOf(await waitForJob(app, `/v2/2davatar/${video}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS));
        assert.equal(videoReason.code, 'invalid_output');
        assert.match(videoReason.message, /video.*without writing/);
        const separationBody = await waitForJob(app, `/v1/sourceSeparations/${separation}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS);
        assert.equal(reasonOf(separationBody).code, 'invalid_output');
        assert.equal((await app.http.get('/v2/avatar').set('key', KEYS.a)).status, 200);
      } finally {
        await app.close();
      }
    });

    it('an engine that writes garbage: the job ends in error (invalid_output) and stores nothing', async () => {
      const dataDir = await freshDir(`va-fault-garbage-${adapter}-`);
      const blobs = new RecordingBlobStore(dataDir);
      const app = await makeApp(adapter, {
        dataDir,
        backends: { blobStore: blobs, lipSync: new GarbageLipSyncEngine(), separation: new GarbageSeparationEngine() },
      });
      try {
        const from = blobs.events.length;
        const avatarId = await firstAvatarId(app, KEYS.a);
        const video = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        const separation = await createSeparation(app, KEYS.b, h.url('speech.mp3'));
        const videoReason = reasonOf(await waitForJob(app, `/v2/2davatar/${video}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS));
        assert.equal(videoReason.code, 'invalid_output');
        const stemReason = reasonOf(await waitForJob(app, `/v1/sourceSeparations/${separation}`, KEYS.b, ['completed', 'error'], FINAL_WITHIN_MS));
        assert.equal(stemReason.code, 'invalid_output');
        assert.match(stemReason.message, /ambience stem/);
        const results = blobs.events.slice(from).filter((e) => e.op === 'put' && (e.contentType === 'video/mp4' || e.contentType === 'audio/wav'));
        assert.deepEqual(results, [], 'a result blob was stored for invalid output');
      } finally {
        await app.close();
      }
    });

    it('a work folder that cannot be made: the job ends in error instead of staying ongoing', async () => {
      const dataDir = await freshDir(`va-fault-workdir-${adapter}-`);
      const app = await makeApp(adapter, { dataDir });
      const savedTmp = process.env.TMPDIR;
      try {
        // Where work folders go is a file now: mkdtemp fails (ENOTDIR/EEXIST), even for root.
        await rm(join(dataDir, 'work'), { recursive: true, force: true });
        await writeFile(join(dataDir, 'work'), 'not a folder');
        // Versions that made work folders in os.tmpdir() meet the same fault.
        process.env.TMPDIR = join(dataDir, 'work');
        const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: await firstAvatarId(app, KEYS.a) });
        const reason = reasonOf(await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS));
        assert.equal(reason.code, 'processing_failed');
        assert.match(reason.message, /work folder/);
        assert.doesNotMatch(reason.message, new RegExp(dataDir), 'the reason leaks a server path');
        assert.equal(app.lipSync.calls, 0);
      } finally {
        if (savedTmp === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = savedTmp;
        await app.close();
      }
    });

    it('a hung engine that ignores its signal hits the deadline: error/timeout, signal aborted, the key runs its next job', async () => {
      const engine = new HangingLipSyncEngine();
      const app = await makeApp(adapter, {
        // The hung engines never stop: close() waits engineStopGraceMs for them (see late-engine.test.ts).
        limits: { jobTimeoutMs: 300, jobTimeoutPerInputSecondMs: 0, engineStopGraceMs: 200 },
        backends: { lipSync: engine },
      });
      try {
        const avatarId = await firstAvatarId(app, KEYS.a);
        const first = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        const second = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        const reason = reasonOf(await waitForJob(app, `/v2/2davatar/${first}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS));
        assert.equal(reason.code, 'timeout');
        assert.match(reason.message, /time limit of 0\.3 s/);
        assert.equal(engine.signals[0]?.aborted, true, 'the engine was not told to stop');
        // One job per key: the second only starts once the hung one's slot is given back.
        await waitFor('the second job of the key to start', async () => (engine.calls >= 2 ? true : undefined), FINAL_WITHIN_MS);
        assert.equal(reasonOf(await waitForJob(app, `/v2/2davatar/${second}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS)).code, 'timeout');
      } finally {
        await app.close();
      }
    });

    it('a job made error by another writer stops its engine here and frees its slot', async () => {
      const engine = new HangingLipSyncEngine(1);
      // staleJobMs 800: heartbeat every 100 ms, which is when the runner sees that the job was ended.
      const app = await makeApp(adapter, { retention: { staleJobMs: 800 }, limits: { engineStopGraceMs: 200 }, backends: { lipSync: engine } });
      try {
        const store = app.instance.container.resolve<JobStore>(TOKENS.JobStore);
        const avatarId = await firstAvatarId(app, KEYS.a);
        const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        await engine.started(1);
        const ended = await store.transition(uid, sourcesOf('error'), 'error', { failure: { code: 'interrupted', message: 'ended by another process' } });
        assert.equal(ended?.status, 'error');
        await waitFor('the engine signal to abort', async () => (engine.signals[0]?.aborted ? true : undefined), 5_000);
        const next = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId });
        assert.equal((await waitForJob(app, `/v2/2davatar/${next}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS)).status, 'completed');
        assert.deepEqual(reasonOf((await app.http.get(`/v2/2davatar/${uid}`).set('key', KEYS.a)).body), {
          code: 'interrupted',
          message: 'ended by another process',
        });
      } finally {
        await app.close();
      }
    });

    it('a result stored by a job that then failed before completing is deleted by retention', async () => {
      const dataDir = await freshDir(`va-fault-provisional-${adapter}-`);
      const blobs = new FailingExpiryBlobStore(dataDir);
      const app: TestApp = await makeApp(adapter, {
        dataDir,
        retention: { resultsMs: 1_500, sweepIntervalMs: 200 },
        backends: { blobStore: blobs },
      });
      try {
        const from = blobs.events.length;
        const uid = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId: await firstAvatarId(app, KEYS.a) });
        const body = await waitForJob(app, `/v2/2davatar/${uid}`, KEYS.a, ['completed', 'error'], FINAL_WITHIN_MS);
        assert.match(reasonOf(body).message, /setExpiry failed/);
        const result = blobs.events.slice(from).find((e) => e.op === 'put' && e.contentType === 'video/mp4');
        assert.ok(result, 'the engine output was never stored');
        assert.ok((await blobs.stat(result.id))?.meta.expiresAt, 'the result was stored without an expiry');
        await waitFor('retention to delete the orphaned result', async () => ((await blobs.stat(result.id)) ? undefined : true), 10_000, 100);
      } finally {
        await app.close();
      }
    });
  });
}
