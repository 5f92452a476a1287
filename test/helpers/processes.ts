/** The process tree below a process, read from /proc (Linux): for tests and benches. */
import { readFileSync, readdirSync } from 'node:fs';

/** One live (not zombie) process: its pid, parent, command name, command line, nice value and CPU ticks. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  nice: number;
  /** utime + stime + cutime + cstime (USER_HZ ticks): its own CPU and that of its children that ended. */
  cpuTicks: number;
  /** utime + stime: its own CPU only (all its threads). */
  ownTicks: number;
  /** Minor page faults of its own (all its threads), `minflt`. */
  minorFaults: number;
}

/** What /proc/<pid>/stat says of a process, or undefined when it is gone or a zombie. */
export function processInfo(pid: number | 'self'): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // ended meanwhile
  }
  // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' '); // from field 3 (state) on
  if (fields[0] === 'Z') return undefined;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    // ended meanwhile: its stat line is enough
  }
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  const own = Number(fields[11]) + Number(fields[12]);
  return { pid: Number(stat.slice(0, stat.indexOf(' '))), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, close), cmdline, nice: Number(fields[16]), cpuTicks: ticks, ownTicks: own, minorFaults: Number(fields[7]) };
}

/** The live descendants of `root` (default: this process), children before grandchildren; read synchronously. */
export function processTree(root = process.pid): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => processInfo(Number(name)))
    .filter((info): info is ProcessInfo => info !== undefined);
  const below: ProcessInfo[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const next = all.filter((info) => parents.has(info.ppid));
    below.push(...next);
    parents = new Set(next.map((info) => info.pid));
  }
  return below;
}

/** {@link processTree}, for callers that await. */
export async function descendants(root = process.pid): Promise<ProcessInfo[]> {
  return processTree(root);
}

/** Pids of the ffmpeg processes below this process (started by an engine's child process or by this one). */
export async function ffmpegDescendants(): Promise<number[]> {
  return processTree().filter((info) => info.comm.startsWith('ffmpeg')).map((info) => info.pid);
}

/** The engine child processes below this process whose title names `pool` (e.g. `frame drawing`). */
export async function engineChildren(pool: string): Promise<ProcessInfo[]> {
  return processTree().filter((info) => info.cmdline === `virtual-anchor ${pool}`);
}
