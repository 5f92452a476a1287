import { setPriority } from 'node:os';

/**
 * Nice value of the engines' child processes: CPU-heavy work yields to the host's event loop. On Linux nice values
 * are per thread and inherited by the threads and processes a thread starts: a child lowers its main thread first,
 * so its model threads and the ffmpeg processes it spawns run at the same lower priority. With every core busy (say
 * 20 jobs on 2 cores) the event-loop thread, at nice 0, then
 * gets about nine tenths of a core whenever it has work (CFS weights 1024 against 110), where at equal priority it
 * waited behind the engines for tens of milliseconds.
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
