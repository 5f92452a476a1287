/** The process tree below this test process, read from /proc (Linux). */
import { readFile, readdir } from 'node:fs/promises';

/** One live (not zombie) process: its pid, parent, command name, command line and nice value. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
  nice: number;
}

/** Every live process on the machine (a process that ends while it is read is left out). */
export async function liveProcesses(): Promise<ProcessInfo[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const found = await Promise.all(
    pids.map(async (pid): Promise<ProcessInfo | undefined> => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      if (!stat) return undefined;
      // pid (comm) state ppid …: comm may hold spaces, so split after its closing parenthesis.
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' '); // from field 3 (state) on
      if (fields[0] === 'Z') return undefined;
      const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ').trim();
      return { pid: Number(pid), ppid: Number(fields[1]), comm: stat.slice(stat.indexOf('(') + 1, close), cmdline, nice: Number(fields[16]) };
    }),
  );
  return found.filter((info): info is ProcessInfo => info !== undefined);
}

/** The live descendants of `root` (default: this process), children before grandchildren. */
export async function descendants(root = process.pid): Promise<ProcessInfo[]> {
  const all = await liveProcesses();
  const below: ProcessInfo[] = [];
  let parents = new Set([root]);
  while (parents.size > 0) {
    const next = all.filter((info) => parents.has(info.ppid));
    below.push(...next);
    parents = new Set(next.map((info) => info.pid));
  }
  return below;
}

/** Pids of the ffmpeg processes below this process (started by an engine's child process or by this one). */
export async function ffmpegDescendants(): Promise<number[]> {
  return (await descendants()).filter((info) => info.comm.startsWith('ffmpeg')).map((info) => info.pid);
}

/** The engine child processes below this process whose title names `pool` (e.g. `frame drawing`). */
export async function engineChildren(pool: string): Promise<ProcessInfo[]> {
  return (await descendants()).filter((info) => info.cmdline === `virtual-anchor ${pool}`);
}
