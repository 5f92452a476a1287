import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses), from field 3 on. */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined; // it ended meanwhile
  }
}

/** utime + stime + cutime + cstime of a process, in ticks (fields 14–17). */
function ticksOf(fields: string[]): number {
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/**
 * CPU seconds (user + system) used so far by this process and everything below it: its threads, its children and
 * theirs that have ended (ffmpeg, once it exits and is waited for), and the live ones (the engines' pooled child
 * processes and the ffmpeg processes they run), read from /proc (Linux only; 10 ms resolution). The difference of
 * two readings is the CPU a piece of work cost, whatever else the machine runs meanwhile.
 */
export function cpuSeconds(): number {
  const self = statFields('self');
  if (!self) return 0;
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (!fields) continue;
    const ppid = Number(fields[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  let ticks = Number(self[11]) + Number(self[12]) + Number(self[13]) + Number(self[14]);
  const queue = [...(parents.get(process.pid) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const fields = statFields(pid);
    if (fields) ticks += ticksOf(fields);
    queue.push(...(parents.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}
