import { parentPort, type TransferListItem } from 'node:worker_threads';
import { lowerThreadPriority } from './background-priority.js';
import { serializeError, type FromTaskWorker, type ToTaskWorker } from './task-protocol.js';

/** What a task handler is given besides its task. */
export interface TaskContext<Event> {
  /** Aborted when the parent aborts the task. */
  signal: AbortSignal;
  /** Sends an event (e.g. progress) to the parent's `onEvent`. */
  emit(event: Event): void;
}

/**
 * The worker-thread side of a {@link TaskPool}: runs `handler` for each task the parent sends, one at a time, and
 * answers with its result (moving the buffers `transfer` names instead of copying them) or its error.
 */
export function serveTasks<Task, Result, Event = never>(
  handler: (task: Task, context: TaskContext<Event>) => Promise<Result>,
  transfer: (result: Result) => TransferListItem[] = () => [],
): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread only');
  lowerThreadPriority();
  const post = (message: FromTaskWorker<Result, Event>, list: TransferListItem[] = []) => port.postMessage(message, list);
  const running = new Map<number, AbortController>();
  port.on('message', (message: ToTaskWorker<Task>) => {
    if (message.type === 'abort') {
      running.get(message.id)?.abort(Object.assign(new Error(message.reason.message), { name: message.reason.name }));
      return;
    }
    const { id, task } = message;
    const controller = new AbortController();
    running.set(id, controller);
    const context: TaskContext<Event> = { signal: controller.signal, emit: (event) => post({ type: 'event', id, event }) };
    handler(task, context)
      .then(
        (result) => {
          try {
            post({ type: 'done', id, result }, transfer(result));
          } catch (error) {
            post({ type: 'failed', id, error: serializeError(error) }); // e.g. a result that cannot be cloned
          }
        },
        (error: unknown) => post({ type: 'failed', id, error: serializeError(error) }),
      )
      .finally(() => running.delete(id));
  });
}
