import { fork, type ChildProcess } from 'node:child_process';
import { childModule, forkOptions, type ChildModule } from './child-module.js';
import { lowerSessionPriority } from './background-priority.js';
import { childLauncher, RelayedChild } from './relayed-child.js';

/** An engine child as the pools hold it: forked by the launcher (the default), or by the host itself. */
export type EngineChild = ChildProcess | RelayedChild;

/** The launcher's module (see relayed-child.ts); none where the package was bundled into one file. */
const LAUNCHER = childModule(import.meta.url, 'launcher-child');

/** How a child is started by {@link startChild}. */
export interface ChildOptions {
  /** Named in errors and the child's process title, e.g. `lip-sync analysis`. */
  name: string;
  /** V8 old-space limit of the child (`--max-old-space-size`); past it the child ends, the host does not. */
  maxOldGenerationSizeMb?: number;
  /** Environment variables the child gets unless the host's environment sets them already. */
  defaultEnv?: Record<string, string>;
}

/** Environment variable that tells a child its pool's name (its process title). */
export const CHILD_NAME_ENV = 'VIRTUAL_ANCHOR_CHILD';

/**
 * Starts `module` in a child process with an IPC channel that carries structured clones (typed arrays included).
 * The child is forked by the launcher, a small process of the host's own started with the first child (see
 * relayed-child.ts: a fork of the host stops its event loop for a time that grows with its memory), or by the host
 * where the launcher's module is missing. The child inherits stdout and stderr (its crash report reaches the host's
 * log); it leads a session of its own whose scheduling group is lowered (see lowerSessionPriority) and its threads
 * lower their own priority (see `serveChild`). The caller owns the process: it must listen for `exit` and end it with
 * {@link killChild}.
 */
export function startChild(module: ChildModule, options: ChildOptions): EngineChild {
  const execArgv = [...module.execArgv];
  if (options.maxOldGenerationSizeMb !== undefined) execArgv.push(`--max-old-space-size=${options.maxOldGenerationSizeMb}`);
  const env = { ...options.defaultEnv, ...process.env, [CHILD_NAME_ENV]: options.name };
  if (LAUNCHER) return childLauncher(LAUNCHER).start({ path: module.path, execArgv }, env);
  const child = fork(module.path, [], forkOptions(execArgv, env));
  // Its session is its own scheduling group on Linux: lowered at once, before the child loads its modules.
  if (child.pid !== undefined) lowerSessionPriority(child.pid);
  return child;
}

/** Whether this process is one of this package's children (started by {@link startChild}). */
export function inChildProcess(): boolean {
  return process.env[CHILD_NAME_ENV] !== undefined && process.send !== undefined;
}

/**
 * Sends `message` to `child`; false (and nothing thrown) when its channel is closed: a child that died is reported
 * by its `exit` event, not by the send.
 */
export function sendToChild(child: EngineChild, message: unknown): boolean {
  if (!child.connected) return false;
  try {
    // The callback takes the send's error (a channel closing meanwhile) instead of an `error` event on the child.
    return child.send(message as object, () => undefined);
  } catch {
    return false;
  }
}

/** Whether `child` has exited (or was never started). */
export function childExited(child: EngineChild): boolean {
  if (child instanceof RelayedChild && child.starting) return false;
  return child.exitCode !== null || child.signalCode !== null || child.pid === undefined;
}

/**
 * Kills `child` and everything it started (its process group) at once (SIGKILL: it may be stuck in native code)
 * and resolves once it has exited.
 */
export async function killChild(child: EngineChild): Promise<void> {
  if (childExited(child)) return killGroup(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.ref(); // an idle child is unreferenced: keep the caller's process alive until the exit is seen
  killGroup(child);
  child.kill('SIGKILL');
  await exited;
}

/**
 * Kills what is left of `child`'s process group (POSIX; see {@link startChild}): the ffmpeg processes of a child
 * that crashed or was killed, which would otherwise run on as orphans. Nothing happens where there is none.
 */
export function killGroup(child: EngineChild): void {
  if (process.platform === 'win32' || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already. Nothing else can fail: the group is an engine child's of this process.
  }
}

/** Lets the host exit while `child` idles (`false`), or keeps it alive while `child` works (`true`). */
export function holdChild(child: EngineChild, hold: boolean): void {
  if (child instanceof RelayedChild) return hold ? child.ref() : child.unref();
  if (hold) {
    child.ref();
    child.channel?.ref();
  } else {
    child.unref();
    child.channel?.unref();
  }
}

/** How a child ended, for the error of the task it was running. */
export function describeExit(name: string, code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `the ${name} process was killed by ${signal}` : `the ${name} process exited (code ${code})`;
}
