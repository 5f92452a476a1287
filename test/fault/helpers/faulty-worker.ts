/**
 * A child module for the task-pool fault tests: each task names how it ends. `echo` answers its value,
 * `throw-later` throws an uncaught error from a timer (the child crashes), `exit` ends the child with code 7,
 * `segfault` and `abort` end it as a crash in native code does (SIGSEGV; SIGABRT, as glibc's heap-corruption
 * abort and C++'s `terminate` do), `hang` never answers and ignores aborts, `wait` runs until aborted and then
 * rejects with the abort's reason, `spawn-and-hang` starts an ffmpeg that runs for a minute and never answers.
 */
import { spawn } from 'node:child_process';
import { serveTasks } from '../../../src/inference/workers/serve-tasks.js';

export type FaultyTask =
  | { mode: 'echo'; value: string }
  | { mode: 'throw-later' | 'exit' | 'segfault' | 'abort' | 'hang' | 'wait' }
  | { mode: 'spawn-and-hang'; ffmpegPath: string };

serveTasks<FaultyTask, string>(async (task, { signal }) => {
  switch (task.mode) {
    case 'echo':
      return task.value;
    case 'throw-later':
      setTimeout(() => {
        throw new Error('boom from the worker');
      }, 10);
      return new Promise<string>(() => undefined);
    case 'exit':
      process.exit(7);
    case 'segfault':
      process.kill(process.pid, 'SIGSEGV');
      return new Promise<string>(() => undefined);
    case 'abort':
      process.abort();
    case 'hang':
      return new Promise<string>(() => undefined);
    case 'spawn-and-hang':
      // A file-less ffmpeg that reads no pipe: only a kill ends it before its minute is up.
      spawn(task.ffmpegPath, ['-nostdin', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'anullsrc', '-t', '60', '-f', 'null', '-'], { stdio: 'ignore' });
      return new Promise<string>(() => undefined);
    case 'wait':
      return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  }
});
