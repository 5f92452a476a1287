import { Worker, type WorkerOptions } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { childModule, resolveTsx } from './child-module.js';

/**
 * Starts the module named `name` (without extension) in the folder of `base` (pass `import.meta.url`) on a worker
 * thread of this process: the compiled `.js` as it is; from the TypeScript sources (tests, examples run with tsx) the
 * `.ts` file, behind a bootstrap that first registers tsx's loader on that thread (a worker thread neither inherits
 * the process's `--import tsx` nor takes an `--import` of its own). `undefined` when neither file is there (the
 * package was bundled into one file) or tsx cannot be found: the caller then does the work on its own thread.
 *
 * The thread's priority is that of the thread that starts it (see background-priority.ts); a native crash on it
 * ends the whole process it runs in.
 */
export function startThread(base: string, name: string, options: WorkerOptions = {}): Worker | undefined {
  const module = childModule(base, name);
  if (!module) return undefined;
  if (!module.path.endsWith('.ts')) return new Worker(module.path, options);
  const api = resolveTsx('tsx/esm/api');
  if (!api) return undefined;
  const entry = pathToFileURL(module.path).href;
  const bootstrap = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
