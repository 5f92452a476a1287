/**
 * Where each port of the job data came from: the name of the host's option or container registration that gave it
 * (`backends.jobStore`, `TOKENS.JobStore`), or `undefined` when the instance makes it.
 */
export interface GivenPorts {
  jobStore?: string;
  webhookOutbox?: string;
  idempotencyStore?: string;
}

/**
 * The `OptionsError` issues of features that are on without their port, each naming the missing port. The
 * instance makes the webhook outbox and the idempotency store only beside a job store it made (on that store's
 * backend); with the host's own job store they come from the host too, since the instance can neither write an
 * outbox atomically with a store it does not know nor guess where keys shared by the same processes live. An outbox
 * given without its job store is refused as well: the instance's store would never write it.
 */
export function missingPorts(given: GivenPorts, webhooksOn: boolean): string[] {
  const issues: string[] = [];
  if (given.jobStore) {
    if (webhooksOn && !given.webhookOutbox) {
      issues.push(
        `backends.webhookOutbox: webhooks are on (webhooks.secret is set) and ${given.jobStore} is your own job store, so its webhook outbox must come from you too: pass the WebhookOutbox that store's final transitions write (a built-in store's is \`store.outbox\`; check your own with webhookOutboxSuite from virtual-anchor/testing) as backends.webhookOutbox or under TOKENS.WebhookOutbox, or leave webhooks.secret unset`,
      );
    }
    if (!given.idempotencyStore) {
      issues.push(
        `backends.idempotencyStore: Idempotency-Key needs an IdempotencyStore and ${given.jobStore} is your own job store, so the keys' store must come from you too: pass backends.idempotencyStore or register TOKENS.IdempotencyStore (MemoryIdempotencyStore for one process, RedisIdempotencyStore for processes sharing a Redis, or your own checked with idempotencyStoreSuite from virtual-anchor/testing)`,
      );
    }
  } else if (given.webhookOutbox) {
    issues.push(
      `backends.webhookOutbox: ${given.webhookOutbox} is given without the job store that writes it; the instance's own job store queues deliveries in its own outbox, so this one would never receive any: give that job store too (backends.jobStore or TOKENS.JobStore), or leave the outbox out`,
    );
  }
  return issues;
}
