import { CHILD_NAME_ENV } from './child.js';
import { lowerThreadPriority } from './background-priority.js';
import { serializeError, type SerializedError } from './task-protocol.js';

/** The child side of a {@link startChild} channel. */
export interface ChildPort<In, Out> {
  /** Sends a message to the parent (dropped when the parent is gone: the child then exits). */
  post(message: Out): void;
  /** Listens for the parent's messages. */
  onMessage(listener: (message: In) => void): void;
}

/** What a child sends right before it exits on an uncaught error: the parent fails the child's task with it. */
export interface ChildFatal {
  type: 'fatal';
  error: SerializedError;
}

/**
 * Sets a child process up (see `startChild`): its process title, a lower priority (its CPU work and the ffmpeg
 * processes it starts yield to the host), an exit when the parent goes away (the IPC channel closes: the host
 * ended or was killed), and an uncaught error reported to the parent ({@link ChildFatal}) before the child exits.
 */
export function serveChild<In, Out>(): ChildPort<In, Out> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('this module runs in a child process started by startChild only');
  process.title = `virtual-anchor ${process.env[CHILD_NAME_ENV] ?? 'worker'}`;
  lowerThreadPriority();
  // The parent is gone: end this child and what it started (its process group, see startChild).
  process.on('disconnect', () => {
    try {
      if (process.platform !== 'win32') process.kill(-process.pid, 'SIGKILL');
    } catch {
      // Not a group leader (started some other way): just exit.
    }
    process.exit(0);
  });
  const fatal = (error: unknown) => {
    const message: ChildFatal = { type: 'fatal', error: serializeError(error) };
    const exit = () => process.exit(70);
    // Exit once the report is written (or at once when the channel is gone); never wait more than a second.
    setTimeout(exit, 1_000).unref();
    try {
      if (!send(message, exit)) exit();
    } catch {
      exit();
    }
  };
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  return {
    post: (message) => {
      if (process.connected) send(message, () => undefined);
    },
    onMessage: (listener) => process.on('message', (message) => listener(message as In)),
  };
}
