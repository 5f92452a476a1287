/** Messages between the host's {@link ChildLauncher} (relayed-child.ts) and its process (launcher-child.ts). */
import type { SerializedError } from './task-protocol.js';

/**
 * To the launcher: fork child `id` (`path` with `execArgv`, in a session of its own, its scheduling group lowered),
 * send it `message`, or send it `signal`.
 */
export type ToLauncher =
  | { type: 'start'; id: number; path: string; execArgv: string[]; env: Record<string, string | undefined> }
  | { type: 'send'; id: number; message: unknown }
  | { type: 'kill'; id: number; signal: NodeJS.Signals };

/**
 * From the launcher: child `id` runs as `pid`, sent `message`, failed (`error`: it could not be started, or a
 * signal could not be sent), or exited.
 */
export type FromLauncher =
  | { type: 'started'; id: number; pid: number }
  | { type: 'message'; id: number; message: unknown }
  | { type: 'error'; id: number; error: SerializedError }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };
