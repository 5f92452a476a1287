/**
 * KeyedQueues (the per-key request slots of the HTTP core): a task whose signal aborts while it waits for its key's
 * slot leaves the queue without running (it no longer counts as waiting); a task that has started runs to its end
 * and holds its slot meanwhile, whatever its signal does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueues } from '../../src/queue/keyed-queues.js';
import { gated, tick } from '../helpers/gated-task.js';

describe('KeyedQueues', () => {
  it('drops a waiting task whose signal aborts: it never runs and stops counting as waiting', async () => {
    const queues = new KeyedQueues(1);
    const log: string[] = [];
    const first = gated(log, 'a1');
    const running = queues.run('a', first.task);
    const left = new AbortController();
    const dropped = queues.run('a', gated(log, 'a2').task, left.signal);
    await tick();
    assert.equal(queues.waiting('a'), 1);
    left.abort(new Error('client left'));
    await assert.rejects(dropped, /client left/);
    assert.equal(queues.waiting('a'), 0, 'it no longer counts against the key’s queue');
    first.release();
    assert.equal(await running, 'a1');
    await tick();
    assert.deepEqual(log, ['a1'], 'the dropped task never ran');
    await assert.rejects(queues.run('a', async () => 'late', left.signal), /client left/, 'an aborted signal is refused at once');
  });

  it('keeps a started task’s slot until it ends, even when its signal aborts', async () => {
    const queues = new KeyedQueues(1);
    const log: string[] = [];
    const controller = new AbortController();
    const first = gated(log, 'a1');
    const running = queues.run('a', first.task, controller.signal);
    await tick();
    controller.abort(new Error('client left'));
    const next = gated(log, 'a2');
    const waiting = queues.run('a', next.task);
    await tick();
    assert.deepEqual(log, ['a1'], 'the next task waits for the started one');
    assert.equal(queues.running('a'), 1);
    first.release();
    assert.equal(await running, 'a1', 'the started task’s result, not the abort');
    await tick();
    assert.deepEqual(log, ['a1', 'a2']);
    next.release();
    assert.equal(await waiting, 'a2');
  });
});
