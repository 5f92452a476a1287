import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '../../src/domain/logger.js';
import { Startup } from '../../src/core/startup.js';

function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level}: ${message}`);
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('Startup', () => {
  it('retries a failed start-up after a growing pause instead of failing for good, and logs each cause once', async () => {
    let clock = 0;
    let builds = 0;
    let failWith: string | undefined = 'disk full';
    const started: string[] = [];
    const { logger, lines } = recording();
    const startup = new Startup<string>(
      async () => {
        builds++;
        if (failWith) throw new Error(failWith);
        return 'services';
      },
      (value) => started.push(value),
      logger,
      () => clock,
    );

    await assert.rejects(startup.get(), /disk full/);
    assert.equal(builds, 1);
    clock = 999;
    await assert.rejects(startup.get(), /disk full/);
    assert.equal(builds, 1, 'no retry within the first pause (1 s)');
    clock = 1_000;
    await assert.rejects(startup.get(), /disk full/);
    assert.equal(builds, 2);
    clock = 2_999;
    await assert.rejects(startup.get(), /disk full/);
    assert.equal(builds, 2, 'the pause doubled');
    clock = 3_000;
    failWith = 'no such folder';
    await assert.rejects(startup.get(), /no such folder/);
    assert.equal(lines.filter((line) => line.startsWith('error:')).length, 2, lines.join('\n'));

    clock = 10_000;
    failWith = undefined;
    assert.equal(await startup.get(), 'services');
    assert.equal(await startup.get(), 'services');
    assert.equal(builds, 4);
    assert.deepEqual(started, ['services']);
    assert.ok(lines.some((line) => /^warn: .*started after failed attempts/.test(line)), lines.join('\n'));
    assert.equal(await startup.close(), 'services');
  });

  it('shares one attempt between concurrent callers and stops retrying once closed', async () => {
    let builds = 0;
    const startup = new Startup<number>(async () => ++builds, () => undefined, recording().logger);
    const [a, b] = await Promise.all([startup.get(), startup.get()]);
    assert.equal(a, 1);
    assert.equal(b, 1);
    const failing = new Startup<number>(async () => Promise.reject(new Error('nope')), () => undefined, recording().logger, () => 0);
    await assert.rejects(failing.get());
    assert.equal(await failing.close(), undefined);
    await assert.rejects(failing.get(), /closed/);
  });
});
