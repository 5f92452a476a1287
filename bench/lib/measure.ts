import { cpuSeconds } from '../lipsync/cpu-time.js';

/** Wall and CPU seconds of one piece of work. */
export interface Cost {
  wall: number;
  /** This process's threads and its children that ended meanwhile ({@link cpuSeconds}). */
  cpu: number;
}

/** Runs `work` and measures its wall and CPU time. */
export async function measured(work: () => Promise<unknown>): Promise<Cost> {
  const cpu = cpuSeconds();
  const start = performance.now();
  await work();
  return { wall: (performance.now() - start) / 1000, cpu: cpuSeconds() - cpu };
}
