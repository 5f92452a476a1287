import type { ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What `child_process.fork` is given to run a module of this package in a child process: the module's file and
 * the Node options it needs.
 */
export interface ChildModule {
  /** The module's file. */
  path: string;
  /** Node options of the child: none for the compiled `.js`; tsx's loader for the TypeScript sources. */
  execArgv: string[];
}

/**
 * The child-process module named `name` (without extension) in the folder of `base` (pass `import.meta.url`): the
 * compiled `.js` next to it; from the TypeScript sources (tests, examples run with tsx), the `.ts` file with tsx's
 * loader (`--import tsx`, resolved from this module, not from the working directory); `undefined` when neither
 * file is there (the package was bundled into one file), so that the caller can fall back to its own thread.
 */
export function childModule(base: string, name: string): ChildModule | undefined {
  if (!base.startsWith('file:')) return undefined;
  const js = new URL(`./${name}.js`, base);
  if (existsSync(fileURLToPath(js))) return { path: fileURLToPath(js), execArgv: [] };
  const ts = new URL(`./${name}.ts`, base);
  const tsx = resolveTsx();
  if (tsx && existsSync(fileURLToPath(ts))) return { path: fileURLToPath(ts), execArgv: ['--import', tsx] };
  return undefined;
}

/**
 * A module of tsx, resolved from this module: `tsx`, the loader `node --import tsx` loads, or `tsx/esm/api`, whose
 * `register()` installs it on the calling thread; undefined where tsx is not installed.
 */
export function resolveTsx(module: 'tsx' | 'tsx/esm/api' = 'tsx'): string | undefined {
  try {
    return import.meta.resolve(module);
  } catch {
    return undefined;
  }
}

/**
 * How this package forks its processes (engine children, the launcher): an IPC channel carrying structured clones
 * (typed arrays included), stdout and stderr inherited (a crash report reaches the host's log), and a process group
 * of its own (POSIX: what it starts is killed with it, and a terminal's Ctrl+C reaches the host only, which then ends
 * it). `env` defaults to the caller's.
 */
export function forkOptions(execArgv: string[], env?: Record<string, string | undefined>): ForkOptions {
  return { execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env, detached: process.platform !== 'win32' };
}
