import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RedisJobStore } from '../../src/storage/redis-job-store.js';
import type { Job } from '../../src/domain/job.js';
import { ffmpeg } from '../helpers/media.js';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { deleteRedisNamespace, SHARED_REDIS_URL } from '../helpers/redis-server.js';
import { KEYS } from '../helpers/apps.js';

/**
 * Real processes on the shared Redis and an S3 server (s3rver): one `api` and two `worker` processes
 * (test/helpers/cluster-node.ts) sharing no folder. 8 separation jobs of ~1 s from 2 keys; one worker is SIGKILLed while it runs
 * a job. Every job completes, each engine run's result is stored once, the killed run is run again on
 * the other worker (attempt 2), and the store never shows two `ongoing` jobs of one key.
 */

const namespace = `va-test-cluster-${randomBytes(4).toString('hex')}`;
const keys = [KEYS.a, KEYS.b];
const children: ChildProcess[] = [];
let dataDir: string;
let s3: S3TestServer;
let runsFile: string;
let files: FileServer;
let store: RedisJobStore;

/** Starts one node; resolves with its port once it printed READY. */
function startNode(role: 'api' | 'worker'): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/cluster-node.ts'], {
    env: {
      ...process.env,
      ROLE: role,
      REDIS_URL: SHARED_REDIS_URL,
      NAMESPACE: namespace,
      DATA_DIR: join(dataDir, `node-${children.length}`),
      BLOB_STORE: 's3',
      S3_OPTIONS: JSON.stringify(s3.storeOptions(`${namespace}/`)),
      RUNS_FILE: runsFile,
      API_KEYS: keys.join(','),
      STALE_MS: '4000',
      RUN_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${role} node exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const ready = /^READY (\d+)$/.exec(line);
      if (ready) resolve({ child, port: Number(ready[1]) });
    });
  });
}

interface Run {
  event: 'start' | 'end';
  pid: number;
  /** The input's length in seconds: which job the run belongs to. */
  seconds: number;
}

async function runs(): Promise<Run[]> {
  const text = await readFile(runsFile, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [event, pid, seconds] = line.split(' ');
      return { event: event as Run['event'], pid: Number(pid), seconds: Number(seconds) };
    });
}

async function until<T>(check: () => Promise<T | undefined | false>, limitMs: number, what: string): Promise<T> {
  const stop = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > stop) assert.fail(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('api and worker processes on BullMQ', { timeout: 60_000 }, () => {
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'va-cluster-'));
    runsFile = join(dataDir, 'runs.log');
    await writeFile(runsFile, '');
    // One input per job, each of its own length (0.8 s, 1.0 s, …), so an engine run names its job.
    const inputs = join(dataDir, 'inputs');
    await mkdir(inputs);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=440:duration=${(0.8 + i * 0.2).toFixed(1)}:sample_rate=16000`, '-c:a', 'pcm_s16le', join(inputs, `in-${i}.wav`)]),
      ),
    );
    files = await startFileServer(inputs);
    s3 = await startS3Server();
    store = new RedisJobStore({ url: SHARED_REDIS_URL, namespace });
  });

  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await files?.close();
    await s3?.close();
    await store?.close();
    await deleteRedisNamespace(namespace);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs every job to completion exactly once per attempt, one per key at a time, through a worker SIGKILL', async (t) => {
    const began = Date.now();
    const [api, first, second] = await Promise.all([startNode('api'), startNode('worker'), startNode('worker')]);
    const workers = [first.child, second.child];
    const ownerOf = new Map<string, string>();
    const violations: string[] = [];
    let samples = 0;
    let sampling = true;
    // Every 50 ms, one read of the `ongoing` index (one ZRANGE: a consistent snapshot).
    const sampler = (async () => {
      while (sampling) {
        const ongoing = await store.uidsByStatus('ongoing');
        samples++;
        const perKey = new Map<string, number>();
        for (const uid of ongoing) {
          const key = ownerOf.get(uid) ?? 'unknown';
          perKey.set(key, (perKey.get(key) ?? 0) + 1);
        }
        for (const [key, count] of perKey) if (count > 1) violations.push(`${count} ongoing jobs of ${key}: ${ongoing.join(', ')}`);
        await new Promise((done) => setTimeout(done, 50));
      }
    })();

    t.diagnostic(`processes ready after ${Date.now() - began} ms`);
    const base = `http://127.0.0.1:${api.port}`;
    const uids: string[] = [];
    for (let i = 0; i < 4; i++) {
      for (const [k, key] of keys.entries()) {
        const res = await fetch(`${base}/v1/sourceSeparations`, {
          method: 'POST',
          headers: { key, 'content-type': 'application/json' },
          body: JSON.stringify({ audioUri: files.url(`in-${i * 2 + k}.wav`) }),
        });
        assert.equal(res.status, 201, await res.clone().text());
        const [created] = (await res.json()) as { uid: string }[];
        ownerOf.set(created!.uid, key);
        uids.push(created!.uid);
      }
    }

    // SIGKILL the worker of a run while its engine works.
    const inProgress = (log: Run[]) =>
      log.find((run) => run.event === 'start' && !log.some((end) => end.event === 'end' && end.seconds === run.seconds));
    const victim = await until(async () => inProgress(await runs()), 20_000, 'an engine run in progress');
    const killed = workers.find((child) => child.pid === victim.pid);
    assert.ok(killed, 'the first run was on a worker');
    killed.kill('SIGKILL');
    const killedAt = Date.now();
    t.diagnostic(`jobs created and a worker killed after ${killedAt - began} ms`);

    const done = await until(
      async () => {
        const jobs = await Promise.all(uids.map((uid) => store.get(uid)));
        return jobs.every((job) => job && (job.status === 'completed' || job.status === 'error')) && (jobs as Job[]);
      },
      35_000,
      'every job to end',
    );
    sampling = false;
    await sampler;
    t.diagnostic(`every job ended ${Date.now() - killedAt} ms after the kill`);

    assert.deepEqual(
      done.map((job) => [job.uid, job.status, job.failure?.code]),
      uids.map((uid) => [uid, 'completed', undefined]),
    );
    assert.deepEqual(violations, [], 'never two ongoing jobs of one key');
    assert.ok(samples > 20, `the store was sampled (${samples} samples)`);

    const log = await runs();
    const killedPid: number = killed.pid!;
    for (const job of done) {
      const input = log.filter((run) => Math.abs(run.seconds - job.input.durationSec) < 0.05);
      const trace = `job ${job.uid} (${input.map((run) => `${run.event}@${run.pid === killedPid ? 'killed' : run.pid}`).join(', ')})`;
      const onKilled: Run[] = input.filter((run) => run.pid === killedPid);
      const onSurvivors: Run[] = input.filter((run) => run.pid !== killedPid);
      const starts = input.filter((run) => run.event === 'start');
      const survivorStarts: number = onSurvivors.filter((run) => run.event === 'start').length;
      const survivorEnds: number = onSurvivors.filter((run) => run.event === 'end').length;
      // The killed worker may have finished a run and died before storing its result: that run counts as lost
      // and the job runs again elsewhere. No other process runs a job twice or leaves a run unfinished.
      assert.ok(onKilled.filter((run) => run.event === 'start').length <= 1, `${trace}: at most one run on the killed worker`);
      assert.ok(survivorStarts <= 1, `${trace}: at most one run on the processes that lived`);
      assert.equal(survivorEnds, survivorStarts, `${trace}: every run on the processes that lived finished`);
      assert.ok(starts.some((run) => input.some((end) => end.event === 'end' && end.pid === run.pid)), `${trace}: one engine run finished`);
      if (survivorStarts === 1 && onKilled.length > 0) t.diagnostic(`${trace}: run again after the kill`);
      assert.ok(survivorStarts === 0 || onKilled.length === 0 || job.attempt === 2, `${trace}: a run again after the kill is attempt 2`);
      assert.ok((job.attempt ?? 0) >= starts.length, `${trace}: attempt ${job.attempt} counts its ${starts.length} runs`);
    }
    const victimJob = done.find((job) => Math.abs(victim.seconds - job.input.durationSec) < 0.05);
    assert.ok(victimJob, 'the killed run belongs to a job');
    assert.equal(victimJob.attempt, 2, 'the killed job completed on its second attempt');

    // Result links are presigned URLs of the object store, which serves them itself.
    const view = (await (await fetch(`${base}/v1/sourceSeparations/${victimJob.uid}`, { headers: { key: ownerOf.get(victimJob.uid)! } })).json()) as {
      path: { speech: string; ambience: string };
    };
    for (const link of [view.path.speech, view.path.ambience]) {
      assert.ok(link.startsWith(s3.endpoint), `${link} is served by the object store`);
      const stem = await fetch(link);
      assert.equal(stem.status, 200);
      assert.ok((await stem.arrayBuffer()).byteLength > 1_000);
    }
  });
});
