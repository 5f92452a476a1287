import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) used so far by this process, all its threads included, and by its children
 * that have ended and been waited for (ffmpeg, once it exits): the difference of two readings is the CPU a
 * piece of work cost, whatever else the machine runs meanwhile. Children are read from /proc/self/stat
 * (Linux only; 10 ms resolution).
 */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  // Fields after the command name (which may hold spaces and parentheses): cutime and cstime are fields 16 and 17.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  return (own.user + own.system) / 1e6 + children;
}
