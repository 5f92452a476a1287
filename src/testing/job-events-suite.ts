import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { JobEvents } from '../storage/job-events.js';
import type { SuiteRunner } from './suite-runner.js';

/** Options of {@link jobEventsSuite}. */
export interface JobEventsSuiteOptions extends SuiteRunner {
  /**
   * Makes two handles on one fresh channel, as two processes sharing a backend would have them (for an in-process
   * implementation, the same object twice).
   */
  createPair(): Promise<[JobEvents, JobEvents]>;
  /** Whether announcements cross between the two handles (false for an in-process implementation given twice). Default true. */
  shared?: boolean;
}

/** Resolves with the uids `events` hears until `count` arrived, or rejects after `timeoutMs`. */
function hear(events: JobEvents, count: number, timeoutMs = 2_000): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const heard: string[] = [];
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`heard ${heard.length} of ${count} announcements within ${timeoutMs} ms: ${heard.join(', ')}`));
    }, timeoutMs);
    const stop = events.listen((uid) => {
      heard.push(uid);
      if (heard.length < count) return;
      clearTimeout(timer);
      stop();
      resolve(heard);
    });
  });
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The contract of a {@link JobEvents} implementation (the in-process and the Redis ones pass it): an announcement
 * reaches every listener (of the other handle too, on a shared backend), never synchronously inside `announce`, in
 * the order announced; a listener that stopped hears nothing more; `announce` never rejects, even after `close`.
 */
export function jobEventsSuite(name: string, options: JobEventsSuiteOptions): void {
  const { describe, it } = options;
  const shared = options.shared ?? true;
  const withPair = async (body: (a: JobEvents, b: JobEvents) => Promise<void>) => {
    const [a, b] = await options.createPair();
    try {
      await body(a, b);
    } finally {
      await a.close();
      if (b !== a) await b.close();
    }
  };

  describe(`JobEvents contract: ${name}`, () => {
    it('delivers an announcement to every listener, after announce returns, in order', () =>
      withPair(async (a, b) => {
        const uids = [randomUUID(), randomUUID(), randomUUID()];
        const first = hear(b, 3);
        const second = hear(b, 3);
        await settle(100); // a subscription over the network is made when the first listener comes
        let inside = false;
        const stop = b.listen(() => assert.equal(inside, false, 'a listener is never called inside announce'));
        for (const uid of uids) {
          inside = true;
          const announced = a.announce(uid);
          inside = false;
          await announced;
        }
        assert.deepEqual(await first, uids);
        assert.deepEqual(await second, uids);
        stop();
      }));

    if (shared) {
      it('delivers between the two handles in both directions (each also hears its own)', () =>
        withPair(async (a, b) => {
          const toB = hear(b, 2);
          const toA = hear(a, 2);
          await settle(100);
          const [x, y] = [randomUUID(), randomUUID()];
          await a.announce(x);
          await settle(50);
          await b.announce(y);
          assert.deepEqual(await toB, [x, y]);
          assert.deepEqual(await toA, [x, y]);
        }));
    }

    it('a listener that stopped hears nothing more', () =>
      withPair(async (a, b) => {
        const heard: string[] = [];
        const stop = b.listen((uid) => heard.push(uid));
        const witness = hear(b, 2);
        await settle(100);
        const [x, y] = [randomUUID(), randomUUID()];
        await a.announce(x);
        await settle(300);
        stop();
        await a.announce(y);
        assert.deepEqual(await witness, [x, y]);
        assert.deepEqual(heard, [x]);
      }));

    it('announce never rejects, also after close', async () => {
      const [a, b] = await options.createPair();
      await a.close();
      if (b !== a) await b.close();
      await a.announce(randomUUID());
    });
  });
}
