/**
 * FairQueue: keys take turns on the slots (a key that has not been served goes next), each key's tasks keep their
 * order, a key's waiting tasks are capped (QueueFullError with a retry estimate), and waiting tasks can be aborted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairQueue, QueueFullError } from '../../src/queue/fair-queue.js';
import { gated, tick } from '../helpers/gated-task.js';

describe('FairQueue', () => {
  it('serves another key next, not after the first key’s whole burst, and keeps each key’s order', async () => {
    const queue = new FairQueue({ concurrency: 1, maxWaitingPerKey: 10 });
    const log: string[] = [];
    const tasks = new Map<string, ReturnType<typeof gated>>();
    const results: Promise<string>[] = [];
    const add = (key: string, name: string) => {
      const task = gated(log, name);
      tasks.set(name, task);
      results.push(queue.run(key, task.task));
    };
    for (let i = 1; i <= 4; i++) add('a', `a${i}`);
    add('b', 'b1');
    add('b', 'b2');
    add('c', 'c1');
    await tick();
    assert.deepEqual(log, ['a1']);
    for (const name of ['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']) {
      tasks.get(name)!.release();
      await tick();
      await tick();
    }
    assert.deepEqual(log, ['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    assert.deepEqual(await Promise.all(results), ['a1', 'a2', 'a3', 'a4', 'b1', 'b2', 'c1']);
    assert.equal(queue.active, 0);
  });

  it('refuses a key’s task beyond maxWaitingPerKey while the slots are busy, with a retry estimate; other keys still wait', async () => {
    const queue = new FairQueue({ concurrency: 1, maxWaitingPerKey: 2, typicalTaskMs: 3_500 });
    const log: string[] = [];
    const first = gated(log, 'a1');
    const running = queue.run('a', first.task);
    const waiting = [queue.run('a', gated(log, 'a2').task), queue.run('a', gated(log, 'a3').task)];
    await assert.rejects(queue.run('a', gated(log, 'a4').task), (error: unknown) => {
      assert.ok(error instanceof QueueFullError);
      assert.equal(error.waiting, 2);
      assert.equal(error.retryAfterSec, 4, 'one typical task (3.5 s) per key waiting, rounded up');
      return true;
    });
    assert.equal(queue.waiting('a'), 2);
    const other = queue.run('b', async () => 'b1');
    assert.equal(queue.waiting('b'), 1);
    first.release();
    assert.equal(await running, 'a1');
    assert.equal(await other, 'b1');
    void waiting;
  });

  it('with maxWaitingPerKey 0 refuses only the key that already has a task in flight; another key waits for its turn', async () => {
    const queue = new FairQueue({ concurrency: 2, maxWaitingPerKey: 0 });
    const log: string[] = [];
    const one = gated(log, 'a1');
    const two = gated(log, 'a2');
    const runs = [queue.run('a', one.task), queue.run('a', two.task)];
    // The slots are busy with key a's tasks: a third of a's is refused, but key b (nothing in flight) waits.
    await assert.rejects(queue.run('a', gated(log, 'a3').task), QueueFullError);
    const other = gated(log, 'b1');
    const waiting = queue.run('b', other.task);
    assert.equal(queue.waiting('b'), 1);
    // b has one waiting now: a second of b's is refused like a's.
    await assert.rejects(queue.run('b', async () => 'b2'), QueueFullError);
    one.release();
    await tick();
    await tick();
    assert.deepEqual(log, ['a1', 'a2', 'b1'], 'b took the first free slot');
    two.release();
    other.release();
    assert.deepEqual(await Promise.all([...runs, waiting]), ['a1', 'a2', 'b1']);
    assert.equal(await queue.run('b', async () => 'b2'), 'b2', 'a free slot runs at once');
    await tick();
    assert.equal(queue.active, 0);
  });

  it('drops a waiting task whose signal aborts, and passes a failed task’s error on', async () => {
    const queue = new FairQueue({ concurrency: 1, maxWaitingPerKey: 4 });
    const log: string[] = [];
    const first = gated(log, 'a1');
    const running = queue.run('a', first.task);
    const controller = new AbortController();
    const dropped = queue.run('a', gated(log, 'a2').task, controller.signal);
    controller.abort(new Error('client left'));
    await assert.rejects(dropped, /client left/);
    assert.equal(queue.waiting('a'), 0);
    const failing = queue.run('b', async () => {
      throw new Error('broken');
    });
    first.release();
    await running;
    await assert.rejects(failing, /broken/);
    assert.deepEqual(log, ['a1']);
    assert.equal(queue.active, 0);
  });
});
