import type { S3Client } from '@aws-sdk/client-s3';

/** What a {@link S3Traffic} counted. */
export interface S3TrafficCount {
  /** Requests by command name (e.g. `PutObjectCommand`). */
  requests: Record<string, number>;
  total: number;
  /** Request body bytes sent (Content-Length). */
  bytesUp: number;
  /** Response body bytes announced (Content-Length; HEAD excluded), e.g. GetObject's object size. */
  bytesDown: number;
}

/** Counts every request of an S3 client, by a middleware on its stack (the capacity model's numbers). */
export class S3Traffic {
  #count: S3TrafficCount = { requests: {}, total: 0, bytesUp: 0, bytesDown: 0 };

  constructor(client: S3Client) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const request = args.request as { headers?: Record<string, string> };
        const result = await next(args);
        const response = result.response as { headers?: Record<string, string> };
        const name = context.commandName ?? 'unknown';
        this.#count.requests[name] = (this.#count.requests[name] ?? 0) + 1;
        this.#count.total++;
        this.#count.bytesUp += Number(request.headers?.['content-length'] ?? 0) || 0;
        // HEAD answers announce the object's length but carry no body.
        if (name !== 'HeadObjectCommand') this.#count.bytesDown += Number(response.headers?.['content-length'] ?? 0) || 0;
        return result;
      },
      { step: 'finalizeRequest', name: `countRequests${Math.random().toString(36).slice(2)}` },
    );
  }

  /** What was counted since the last call (and starts a new count). */
  take(): S3TrafficCount {
    const count = this.#count;
    this.#count = { requests: {}, total: 0, bytesUp: 0, bytesDown: 0 };
    return count;
  }
}
