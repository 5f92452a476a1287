import { serveChild } from './serve-child.js';
import { serializeError, type FromTaskWorker, type ToTaskWorker } from './task-protocol.js';

/** What a task handler is given besides its task. */
export interface TaskContext<Event> {
  /** Aborted when the parent aborts the task. */
  signal: AbortSignal;
  /** Sends an event (e.g. progress) to the parent's `onEvent`. */
  emit(event: Event): void;
}

/**
 * The child-process side of a {@link TaskPool}: runs `handler` for each task the parent sends, one at a time, and
 * answers with its result (structured-cloned: typed arrays travel as such) or its error.
 */
export function serveTasks<Task, Result, Event = never>(handler: (task: Task, context: TaskContext<Event>) => Promise<Result>): void {
  const port = serveChild<ToTaskWorker<Task>, FromTaskWorker<Result, Event>>();
  const running = new Map<number, AbortController>();
  port.onMessage((message) => {
    if (message.type === 'abort') {
      running.get(message.id)?.abort(Object.assign(new Error(message.reason.message), { name: message.reason.name }));
      return;
    }
    const { id, task } = message;
    const controller = new AbortController();
    running.set(id, controller);
    const context: TaskContext<Event> = { signal: controller.signal, emit: (event) => port.post({ type: 'event', id, event }) };
    handler(task, context)
      .then(
        (result) => {
          try {
            port.post({ type: 'done', id, result });
          } catch (error) {
            port.post({ type: 'failed', id, error: serializeError(error) }); // e.g. a result that cannot be cloned
          }
        },
        (error: unknown) => port.post({ type: 'failed', id, error: serializeError(error) }),
      )
      .finally(() => running.delete(id));
  });
}
