import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../src/domain/logger.js';
import type { SeparationEngine, SeparationInput } from '../../src/domain/engines.js';
import { pendingSeparation, runnerWith, useRunnerStores } from '../helpers/runner-parts.js';

/**
 * An engine still working after its job ended (shutdown, a cancel, the deadline): the run returns at once, so its
 * slot is free, but the job's work folder is removed only once the engine has stopped writing there, or after
 * `engineStopGraceMs`; `JobRunner.stopped()` (which the service's `close()` awaits) waits for that, so nothing the
 * runner started writes into the data folder after `close()`. Before, the folder was removed at once and the late
 * engine wrote into a folder being removed (a host's `rm` of its data folder right after `close()` failed ENOTEMPTY).
 */

/** An engine that goes on for `lateMs` after its abort, then writes a file in its work folder (or never stops). */
class LateEngine implements SeparationEngine {
  started?: () => void;
  readonly running = new Promise<void>((resolve) => (this.started = resolve));
  workDir?: string;
  /** When it wrote its late file (performance.now()), once it has. */
  wroteAt?: number;

  constructor(private readonly lateMs: number | 'never') {}

  async separate(input: SeparationInput, context: { signal: AbortSignal }): Promise<never> {
    this.workDir = dirname(input.speechPath);
    this.started!();
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
    if (this.lateMs === 'never') return new Promise<never>(() => undefined);
    await delay(this.lateMs);
    await writeFile(join(this.workDir, 'late.txt'), 'written after the abort');
    this.wroteAt = performance.now();
    throw new Error('stopped late');
  }
}

describe('an engine that outlives its job', { timeout: 60_000 }, () => {
  const parts = useRunnerStores('va-late-engine-');
  const warnings: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (message) => void warnings.push(message), error() {} };

  const runner = (engine: SeparationEngine, engineStopGraceMs: number) =>
    runnerWith({ ...parts, logger }, engine, {
      resultsMs: 60_000,
      heartbeatMs: 1_000,
      timeout: { baseMs: 30_000, perInputSecondMs: 0 },
      maxAttempts: 3,
      engineStopGraceMs,
    });
  const newJob = () => pendingSeparation(parts);

  it('the run returns at once; its work folder goes after the engine stopped, and stopped() waits for that', async () => {
    const engine = new LateEngine(400);
    const jobs = await runner(engine, 5_000);
    const job = await newJob();
    const run = jobs.run(job.uid);
    await engine.running;
    await jobs.abortAll('the service is shutting down');
    assert.equal(await run, 'ended');
    assert.equal(engine.wroteAt, undefined, 'the run returned before the engine stopped (its slot is free)');
    assert.ok(existsSync(engine.workDir!), 'the work folder is kept while the engine still works in it');
    const failed = await parts.store.get(job.uid);
    assert.deepEqual([failed?.status, failed?.failure?.code], ['error', 'shutdown']);

    await jobs.stopped();
    const stoppedAt = performance.now();
    assert.ok(engine.wroteAt !== undefined && engine.wroteAt <= stoppedAt, 'stopped() resolved after the engine wrote its last file');
    assert.equal(existsSync(engine.workDir!), false, 'the work folder is gone, late file and all');
    assert.ok(!warnings.some((message) => /still working/.test(message)), warnings.join('\n'));
  });

  it('an engine that never stops holds its folder and stopped() for engineStopGraceMs only, and is logged', async () => {
    const engine = new LateEngine('never');
    const jobs = await runner(engine, 300);
    const job = await newJob();
    const run = jobs.run(job.uid);
    await engine.running;
    const abortedAt = performance.now();
    await jobs.abortAll('the service is shutting down');
    assert.equal(await run, 'ended');
    assert.ok(existsSync(engine.workDir!));
    await jobs.stopped();
    const waited = performance.now() - abortedAt;
    assert.ok(waited >= 290 && waited < 5_000, `stopped() waited ${Math.round(waited)} ms`);
    assert.equal(existsSync(engine.workDir!), false, 'the work folder was removed anyway');
    assert.ok(warnings.some((message) => /still working after its job ended/.test(message)), warnings.join('\n'));
  });
});
