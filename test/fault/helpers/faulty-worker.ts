/**
 * A worker module for the task-pool fault tests: each task names how it ends. `echo` answers its value,
 * `throw-later` throws an uncaught error from a timer (the worker crashes), `exit` ends the thread with code 7,
 * `hang` never answers and ignores aborts, `wait` runs until aborted and then rejects with the abort's reason.
 */
import { serveTasks } from '../../../src/inference/workers/serve-tasks.js';

export type FaultyTask = { mode: 'echo'; value: string } | { mode: 'throw-later' | 'exit' | 'hang' | 'wait' };

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
    case 'hang':
      return new Promise<string>(() => undefined);
    case 'wait':
      return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  }
});
