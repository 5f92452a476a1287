/**
 * Resident memory of this process and every process it started (worker threads count in their process; child
 * processes, such as ffprobe or a pool's children, in their own), sampled while a test runs.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

/** VmRSS of `pid` in bytes (0 once it has gone). */
function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The children of `pid`, started by any of its threads, from /proc. */
function childrenOf(pid: number): number[] {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return ''; // the thread or process has just ended
    }
  };
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    // the process has just ended
  }
  return tasks.flatMap((tid) => read(`/proc/${pid}/task/${tid}/children`).split(/\s+/).filter(Boolean).map(Number));
}

/** Resident bytes of `pid` and all its descendants; off Linux, this process's `rss` alone. */
export function treeRss(pid = process.pid): number {
  if (process.platform !== 'linux') return process.memoryUsage.rss();
  let total = 0;
  const pending = [pid];
  while (pending.length) {
    const next = pending.pop()!;
    total += rssOf(next);
    pending.push(...childrenOf(next));
  }
  return total;
}

/** A running sample of {@link treeRss}. */
export interface RssWatch {
  /** Stops sampling; `growth` is the peak over the value when the watch started. */
  stop(): { baseline: number; peak: number; growth: number };
}

/** Samples {@link treeRss} every `everyMs` from now until `stop()`. */
export function watchRss(everyMs = 20): RssWatch {
  const baseline = treeRss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRss());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, treeRss());
      return { baseline, peak, growth: peak - baseline };
    },
  };
}

/**
 * Runs `work` while sampling {@link treeRss}, logs the growth and asserts it stays under `bound` bytes; returns
 * what `work` resolved with.
 */
export async function withinRss<T>(what: string, bound: number, work: () => Promise<T>): Promise<T> {
  const rss = watchRss();
  const result = await work();
  const { growth } = rss.stop();
  console.log(`${what}: resident memory of the server and its children grew ${mb(growth)}`);
  assert.ok(growth < bound, `${what}: resident memory grew ${mb(growth)}, more than ${mb(bound)}`);
  return result;
}

/** Bytes as MB, for messages. */
export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
