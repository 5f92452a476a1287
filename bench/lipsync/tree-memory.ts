import { readFile } from 'node:fs/promises';
import { processTree } from '../../test/helpers/processes.js';

/** What {@link sampleTreeMemory} saw of a process tree. */
export interface TreeMemory {
  /** The largest sum of the resident sets of the tree's processes at one sample (MiB). */
  peakTreeRssMiB: number;
  /** Each process's own peak resident set (VmHWM, MiB), the largest per command name (e.g. node, ffmpeg). */
  peakRssByCommandMiB: Record<string, number>;
  samples: number;
}

/**
 * Samples the resident memory of process `root` and all its descendants (worker threads are part of their
 * process) every `intervalMs` from /proc until `stop()` is called, which resolves with what it saw. The tree's
 * members are found again every few samples (a scan of /proc); a process that lives less than a sample may be
 * missed, and the peak of the sum falls between samples at worst by what the tree allocates in `intervalMs`.
 */
export function sampleTreeMemory(root: number, intervalMs = 50): { stop(): Promise<TreeMemory> } {
  let members: number[] = [root];
  let peakTree = 0;
  const peakByCommand: Record<string, number> = {};
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      if (samples % 10 === 0) members = [root, ...processTree(root).map((info) => info.pid)];
      let sum = 0;
      for (const pid of members) {
        const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
        if (!status) continue; // ended since the last scan
        const rss = kib(status, 'VmRSS');
        sum += rss;
        const name = /^Name:\s*(.*)$/m.exec(status)?.[1] ?? String(pid);
        peakByCommand[name] = Math.max(peakByCommand[name] ?? 0, kib(status, 'VmHWM') / 1024);
      }
      peakTree = Math.max(peakTree, sum / 1024);
      samples++;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { peakTreeRssMiB: peakTree, peakRssByCommandMiB: peakByCommand, samples };
    },
  };
}

/** A `Key:   1234 kB` line of /proc/<pid>/status, in KiB (0 when absent). */
function kib(status: string, key: string): number {
  const match = new RegExp(`^${key}:\\s*(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) : 0;
}
