import { readFileSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Nice value of the engines' child processes: CPU-heavy work yields to the host's event loop. On Linux nice values
 * are per thread and inherited by the threads and processes a thread starts: a child lowers its main thread first,
 * so its model threads and the ffmpeg processes it spawns run at the same lower priority. With every core busy (say
 * 20 jobs on 2 cores) the event-loop thread, at nice 0, then
 * gets about nine tenths of a core whenever it has work (CFS weights 1024 against 110), where at equal priority it
 * waited behind the engines for tens of milliseconds. Nice values weigh threads within one scheduling group; each
 * child's own group is lowered too (see {@link lowerSessionPriority}).
 */
export const ENGINE_THREAD_NICE = 10;

/**
 * Lowers the priority of the calling thread to {@link ENGINE_THREAD_NICE} (`setpriority(PRIO_PROCESS, 0)` acts on
 * the calling thread on Linux). Returns false where the platform refuses (the thread then keeps its priority: the
 * work is the same, only the host's latency under full load is worse).
 */
export function lowerThreadPriority(): boolean {
  try {
    setPriority(ENGINE_THREAD_NICE);
    return true;
  } catch {
    // Not an I/O or store failure: a platform without per-thread priorities. Nothing to report to a job.
    return false;
  }
}

/**
 * Lowers the priority of process `pid`'s scheduling group, where Linux groups processes by session
 * (CONFIG_SCHED_AUTOGROUP, on in Debian's and Ubuntu's kernels): every session is one group, and the groups share the
 * CPU by the group's own nice value, whatever the nice of the threads inside them. An engine child starts its own
 * session (it is started `detached`, see startChild), so without this each busy child weighed as much as the whole
 * host, and with a few of them running the event loop waited for a core for tens of milliseconds (the event-loop
 * bench's 20 jobs on 2 cores: 100–120 ms at most per batch, against 14–41 ms with it). Writes
 * {@link ENGINE_THREAD_NICE} to `/proc/<pid>/autogroup`, and only when `pid` leads its own session (the group then
 * holds that child and what it starts, never the host). Returns whether it did; elsewhere (other platforms, kernels
 * without autogroup, a process in its parent's session, one that has ended) it changes nothing.
 */
export function lowerSessionPriority(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const session = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    if (session !== pid) return false;
    writeFileSync(`/proc/${pid}/autogroup`, String(ENGINE_THREAD_NICE));
    return true;
  } catch {
    // No autogroup in this kernel (no such file), not allowed, or the process ended: the threads' own nice still
    // applies within the group.
    return false;
  }
}
