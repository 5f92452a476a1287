import { serveChild } from './serve-child.js';
import { serializeError, type FromTaskWorker, type ToTaskWorker } from './task-protocol.js';

/** What a task handler is given besides its task. */
export interface TaskContext<Event, Input = never> {
  /** Aborted when the parent aborts the task. */
  signal: AbortSignal;
  /** Sends an event (e.g. progress) to the parent's `onEvent`. */
  emit(event: Event): void;
  /**
   * What the parent sends the task after it started (`RunTaskOptions.input`: say, a result still being computed
   * elsewhere when the task was posted); rejects with the abort's reason when the task is stopped first.
   */
  input: Promise<Input>;
}

/**
 * The child-process side of a {@link TaskPool}: runs `handler` for each task the parent sends, one at a time, and
 * answers with its result (structured-cloned: typed arrays travel as such) or its error.
 */
export function serveTasks<Task, Result, Event = never, Input = never>(handler: (task: Task, context: TaskContext<Event, Input>) => Promise<Result>): void {
  const port = serveChild<ToTaskWorker<Task, Input>, FromTaskWorker<Result, Event>>();
  const running = new Map<number, { controller: AbortController; input: (value: Input) => void }>();
  port.onMessage((message) => {
    if (message.type === 'abort') {
      running.get(message.id)?.controller.abort(Object.assign(new Error(message.reason.message), { name: message.reason.name }));
      return;
    }
    if (message.type === 'input') {
      running.get(message.id)?.input(message.input);
      return;
    }
    const { id, task } = message;
    const controller = new AbortController();
    let resolve!: (value: Input) => void;
    const input = new Promise<Input>((done, fail) => {
      resolve = done;
      controller.signal.addEventListener('abort', () => fail(controller.signal.reason), { once: true });
    });
    // Awaited by the handler or not at all: an abort that rejects it unawaited is not an unhandled rejection.
    input.catch(() => undefined);
    running.set(id, { controller, input: resolve });
    const context: TaskContext<Event, Input> = { signal: controller.signal, emit: (event) => port.post({ type: 'event', id, event }), input };
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
