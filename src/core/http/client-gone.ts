import type { ServerResponse } from 'node:http';

/** What a request whose client has gone is told (nobody reads it) and what its signal's reason says. */
export const CLIENT_GONE_MESSAGE = 'the client closed the connection before the answer';

/**
 * The reason a request's {@link CoreRequest.signal} aborts with: its client closed the connection before the answer
 * was sent, so whatever the request still waits for (its turn at the input checks) is dropped.
 */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';

  constructor() {
    super(CLIENT_GONE_MESSAGE);
  }
}

/**
 * A signal that aborts with {@link ClientGoneError} once `res` closes before its answer was finished: the client
 * left. The response's `close`, not the request's: in Node 16 and later a request emits `close` as soon as its body
 * has been read, client still there.
 */
export function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  return controller.signal;
}
