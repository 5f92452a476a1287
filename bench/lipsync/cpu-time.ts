import { processInfo, processTree } from '../../test/helpers/processes.js';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) used so far by this process and everything below it: its threads, its children and
 * theirs that have ended (ffmpeg, once it exits and is waited for), and the live ones (the engines' pooled child
 * processes and the ffmpeg processes they run), read from /proc (Linux only; 10 ms resolution). The difference of
 * two readings is the CPU a piece of work cost, whatever else the machine runs meanwhile.
 */
export function cpuSeconds(): number {
  const ticks = [processInfo('self'), ...processTree()].reduce((sum, info) => sum + (info?.cpuTicks ?? 0), 0);
  return ticks / TICKS_PER_SECOND;
}
