import assert from 'node:assert/strict';
import type { JobKind } from '../domain/job.js';
import type { JobQueue, QueuedJob, QueueHandlers } from '../queue/job-queue.js';
import type { SuiteRunner } from './suite-runner.js';

/** What {@link queueSuite} needs: the runner's `describe` and `it`, and the queue under test. */
export interface QueueSuiteOptions extends SuiteRunner {
  /** A fresh, empty queue with these limits (each test makes its own and closes it). */
  create(limits: { jobsPerKey: number; engines: number }): Promise<JobQueue> | JobQueue;
  /** Longest wait for what a test expects to happen (jobs run). Default 30 000 ms. */
  timeoutMs?: number;
}

/** What the suite's handlers saw. */
class Recorder implements QueueHandlers {
  readonly starts: string[] = [];
  readonly ends: string[] = [];
  private readonly running = new Map<string, number>();
  private readonly peaks = new Map<string, number>();
  private active = 0;
  peakActive = 0;

  constructor(
    private readonly keyOf: (uid: string) => string,
    private readonly runMs: number,
  ) {}

  async run(uid: string): Promise<void> {
    const key = this.keyOf(uid);
    this.starts.push(uid);
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    this.peaks.set(key, Math.max(this.peaks.get(key) ?? 0, this.running.get(key)!));
    this.peakActive = Math.max(this.peakActive, ++this.active);
    await new Promise((done) => setTimeout(done, this.runMs));
    this.active--;
    this.running.set(key, this.running.get(key)! - 1);
    this.ends.push(uid);
  }

  peakOf(key: string): number {
    return this.peaks.get(key) ?? 0;
  }
}

/** Polls `condition` every 20 ms until it holds; fails after `limitMs`. */
async function until(condition: () => boolean, limitMs: number, what: string): Promise<void> {
  const stop = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > stop) assert.fail(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

let counter = 0;
function jobsOf(owner: string, count: number, kind: JobKind = 'avatarVideo'): QueuedJob[] {
  return Array.from({ length: count }, (_, i) => ({ uid: `${owner}-${kind}-${i}-${++counter}`, owner, kind }));
}

/**
 * The contract every {@link JobQueue} passes: per-key order and limit, the engine limit,
 * removal, idempotent enqueue and close. Run it with your queue's factory:
 *
 * ```ts
 * import { describe, it } from 'node:test';
 * queueSuite('my queue', { describe, it, create: (limits) => new MyQueue(limits) });
 * ```
 */
export function queueSuite(name: string, options: QueueSuiteOptions): void {
  const { describe, it } = options;
  const timeout = options.timeoutMs ?? 30_000;
  const owners = new Map<string, string>();
  const keyOf = (uid: string) => owners.get(uid) ?? 'unknown';
  const track = (jobs: QueuedJob[]) => {
    for (const job of jobs) owners.set(job.uid, `${job.owner}:${job.kind}`);
    return jobs;
  };

  const withQueue = async (limits: { jobsPerKey: number; engines: number }, runMs: number, body: (queue: JobQueue, seen: Recorder) => Promise<void>) => {
    const queue = await options.create(limits);
    const seen = new Recorder(keyOf, runMs);
    try {
      await queue.start(seen);
      await body(queue, seen);
    } finally {
      await queue.close();
    }
  };

  describe(`JobQueue contract: ${name}`, () => {
    it('runs the jobs of one key one at a time, in the order they were queued', async () => {
      await withQueue({ jobsPerKey: 1, engines: 4 }, 60, async (queue, seen) => {
        const jobs = track(jobsOf('owner-a', 5));
        for (const job of jobs) await queue.enqueue(job);
        await until(() => seen.ends.length === jobs.length, timeout / 2, 'every job to run');
        assert.deepEqual(seen.starts, jobs.map((j) => j.uid));
        assert.equal(seen.peakOf('owner-a:avatarVideo'), 1);
      });
    });

    it('lets jobsPerKey jobs of one key run at once, and keys and API families apart', async () => {
      await withQueue({ jobsPerKey: 2, engines: 8 }, 300, async (queue, seen) => {
        const a = track(jobsOf('owner-b', 4));
        const other = track([...jobsOf('owner-c', 2), ...jobsOf('owner-b', 2, 'separation')]);
        for (const job of [...a, ...other]) await queue.enqueue(job);
        await until(() => seen.ends.length === 8, timeout / 2, 'every job to run');
        assert.equal(seen.peakOf('owner-b:avatarVideo'), 2);
        assert.ok(seen.peakOf('owner-c:avatarVideo') <= 2);
        assert.ok(seen.peakOf('owner-b:separation') <= 2);
        assert.ok(seen.peakActive > 2, `different keys ran side by side (peak ${seen.peakActive})`);
      });
    });

    it('runs at most `engines` jobs at once in one consumer', async () => {
      await withQueue({ jobsPerKey: 1, engines: 2 }, 200, async (queue, seen) => {
        const jobs = track(Array.from({ length: 6 }, (_, i) => jobsOf(`owner-e${i}`, 1)[0]!));
        for (const job of jobs) await queue.enqueue(job);
        await until(() => seen.ends.length === jobs.length, timeout / 2, 'every job to run');
        assert.equal(seen.peakActive, 2);
      });
    });

    it('runs a job queued twice once', async () => {
      await withQueue({ jobsPerKey: 1, engines: 2 }, 300, async (queue, seen) => {
        const [blocker, job] = track(jobsOf('owner-d', 2));
        await queue.enqueue(blocker!);
        await queue.enqueue(job!);
        await queue.enqueue(job!);
        await until(() => seen.ends.length >= 2, timeout / 2, 'both jobs to run');
        await new Promise((done) => setTimeout(done, 600));
        assert.deepEqual(seen.starts, [blocker!.uid, job!.uid]);
      });
    });

    it('drops a removed job that has not started', async () => {
      await withQueue({ jobsPerKey: 1, engines: 2 }, 400, async (queue, seen) => {
        const [running, removed, kept] = track(jobsOf('owner-g', 3));
        await queue.enqueue(running!);
        await until(() => seen.starts.length === 1, timeout / 2, 'the first job to start');
        await queue.enqueue(removed!);
        await queue.enqueue(kept!);
        await queue.remove(removed!.uid);
        await until(() => seen.ends.length === 2, timeout / 2, 'the kept job to run');
        await new Promise((done) => setTimeout(done, 800));
        assert.deepEqual(seen.starts, [running!.uid, kept!.uid]);
      });
    });

    it('reports its depth', async () => {
      await withQueue({ jobsPerKey: 1, engines: 1 }, 400, async (queue, seen) => {
        const jobs = track(jobsOf('owner-h', 3));
        for (const job of jobs) await queue.enqueue(job);
        await until(() => seen.starts.length === 1, timeout / 2, 'the first job to start');
        const depth = await queue.depth();
        assert.equal(depth.active, 1);
        assert.equal(depth.waiting + depth.delayed, 2);
      });
    });

    it('close waits for running jobs, starts no more, and may be called again', async () => {
      const queue = await options.create({ jobsPerKey: 1, engines: 1 });
      const seen = new Recorder(keyOf, 400);
      await queue.start(seen);
      const jobs = track(jobsOf('owner-i', 3));
      for (const job of jobs) await queue.enqueue(job);
      await until(() => seen.starts.length === 1, timeout / 2, 'the first job to start');
      await queue.close();
      assert.deepEqual(seen.ends, [jobs[0]!.uid], 'the running job finished before close resolved');
      await new Promise((done) => setTimeout(done, 600));
      assert.equal(seen.starts.length, 1);
      await queue.close();
    });
  });
}
