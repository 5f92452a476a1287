import type { ClaimedDelivery, WebhookOutbox } from './webhook-outbox.js';

/**
 * The {@link WebhookOutbox} of a {@link MemoryJobStore} (`store.outbox`), in the same process memory: the store
 * queues a delivery in the same step (under the job's lock, with no await between) that makes the job final.
 */
export class MemoryWebhookOutbox implements WebhookOutbox {
  /** Job uid → when its next attempt is due (or its lease ends), and how many claims it had. */
  readonly #deliveries = new Map<string, { dueMs: number; attempts: number }>();

  /**
   * Queues the delivery of `uid`, due at `dueMs`, unless it is queued already. Synchronous, for the job store that
   * writes this outbox in the step that makes the job final.
   */
  add(uid: string, dueMs: number): void {
    if (!this.#deliveries.has(uid)) this.#deliveries.set(uid, { dueMs, attempts: 0 });
  }

  /** {@inheritDoc WebhookOutbox.claim} */
  async claim(nowMs: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const due = [...this.#deliveries].filter(([, d]) => d.dueMs <= nowMs).sort((a, b) => a[1].dueMs - b[1].dueMs).slice(0, limit);
    return due.map(([uid, delivery]) => {
      delivery.dueMs = nowMs + leaseMs;
      delivery.attempts += 1;
      return { uid, attempt: delivery.attempts };
    });
  }

  /** {@inheritDoc WebhookOutbox.settle} */
  async settle(uid: string, nextDueMs: number | undefined): Promise<void> {
    const delivery = this.#deliveries.get(uid);
    if (!delivery) return;
    if (nextDueMs === undefined) this.#deliveries.delete(uid);
    else delivery.dueMs = nextDueMs;
  }
}
