/**
 * Messages between a {@link TaskPool} (parent) and {@link serveTasks} (child process). A child runs one task at a
 * time; every message names the task (`id`), so a late message about an earlier task is ignored.
 */
import type { ChildFatal } from './serve-child.js';

/** An error as it crosses the process boundary (Errors lose their class and own properties when cloned). */
export interface SerializedError {
  name: string;
  message: string;
  /** e.g. `ABORT_ERR`, `ENOENT`. */
  code?: string;
  stack?: string;
}

/** Parent → worker. */
export type ToTaskWorker<Task, Input = never> =
  | { type: 'run'; id: number; task: Task }
  /** What the running task was told to wait for (`RunTaskOptions.input`), once the parent has it. */
  | { type: 'input'; id: number; input: Input }
  /** Stop the task: its signal is aborted with `reason`; the worker answers `failed` once it stopped. */
  | { type: 'abort'; id: number; reason: SerializedError };

/** Child → parent. */
export type FromTaskWorker<Result, Event> =
  | { type: 'event'; id: number; event: Event }
  | { type: 'done'; id: number; result: Result }
  | { type: 'failed'; id: number; error: SerializedError }
  | ChildFatal;

/** {@link SerializedError} of anything thrown. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, stack: error.stack, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** An Error with the serialized one's name, message and code; the worker's stack is kept as `cause`'s text. */
export function reviveError(serialized: SerializedError): Error {
  const error = new Error(serialized.message) as Error & { code?: string };
  error.name = serialized.name;
  if (serialized.code !== undefined) error.code = serialized.code;
  if (serialized.stack) error.stack = `${error.name}: ${error.message}\n    (in a child process)\n${serialized.stack.split('\n').slice(1).join('\n')}`;
  return error;
}
