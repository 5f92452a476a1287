/** One webhook delivery claimed from the outbox: the job it announces and which attempt this is (1-based). */
export interface ClaimedDelivery {
  /** The job's uid (a job has at most one delivery: its first final state). */
  uid: string;
  /** 1 for the first attempt; counts every claim, including claims by a process that died before settling. */
  attempt: number;
}

/**
 * The webhook outbox: the deliveries announcing jobs' final states that are still to be sent, kept with the job
 * records so that a delivery survives a restart and any process sharing the store may send it.
 *
 * An outbox is written by its {@link JobStore}, never by the service: the store queues one delivery, due at once,
 * in the same atomic write that first moves a job with a `webhook` to a final state (so no crash between the two
 * can lose a delivery or announce a state that was never written). The outbox claims and settles what is queued.
 * An outbox and its store are therefore a pair on one backend: the built-in stores hand theirs out as
 * `store.outbox` (`MemoryJobStore`: the same process memory, written in the same step; `RedisJobStore`: the same
 * connection and namespace, written by the store's compare-and-set script). Closing the store ends its outbox.
 * `webhookOutboxSuite` in `virtual-anchor/testing` checks a pair.
 */
export interface WebhookOutbox {
  /**
   * Claims up to `limit` deliveries due at `nowMs`, oldest due first, leasing each until `nowMs + leaseMs`: no other
   * claim returns it before then, so two processes never send one attempt at the same time, and a process that
   * dies mid-send leaves it to be claimed again when the lease ends.
   */
  claim(nowMs: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Ends a claimed delivery: `nextDueMs` schedules its next attempt, `undefined` removes it (delivered or given up). */
  settle(uid: string, nextDueMs: number | undefined): Promise<void>;
}
