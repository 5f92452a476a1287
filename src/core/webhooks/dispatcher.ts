import type { JobStore } from '../../storage/job-store.js';
import type { ClaimedDelivery } from '../../storage/store-extensions.js';
import { isStoreUnavailable } from '../../storage/store-unavailable-error.js';
import type { LinkBuilder } from '../links.js';
import type { Logger } from '../../domain/logger.js';
import type { MetricsRecorder } from '../metrics/metrics-recorder.js';
import { isFinal } from '../../domain/state-machine.js';
import { webhookEvent, webhookId } from './event.js';
import { postWebhook } from './post-webhook.js';
import { signWebhook } from './signature.js';

/** Settings of a {@link WebhookDispatcher}. */
export interface WebhookDispatcherSettings {
  /** `whsec_<base64>` signing secret. */
  secret: string;
  /** How often the outbox is polled for due deliveries. */
  pollMs: number;
  /** Waits before each retry (default: `WEBHOOK_RETRY_DELAYS_MS` in retry-schedule.ts). */
  retryDelaysMs: readonly number[];
  /** Deadline of one attempt. */
  timeoutMs: number;
  /** Deliveries sent at once by this process. */
  concurrency: number;
  /** Lets webhook URLs reach private addresses (tests, development). */
  allowPrivateAddresses: boolean;
}

/** What one attempt's outcome is reported as (metric label `outcome`). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'gave_up' | 'dropped';

/**
 * Sends the webhook deliveries the job store queued (its outbox), so a delivery survives a restart and any
 * process sharing the store may send it. Each poll claims due deliveries with a lease (the attempt's deadline
 * plus a margin) and sends them signed; a 2xx removes the delivery, anything else schedules the next attempt,
 * with the same `webhook-id`, until the retry schedule is used up. The payload is built from the job record at
 * send time, so its links are fresh.
 */
export class WebhookDispatcher {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: JobStore,
    private readonly links: (baseUrl: string) => LinkBuilder,
    private readonly metrics: MetricsRecorder,
    private readonly logger: Logger,
    private readonly settings: WebhookDispatcherSettings,
  ) {}

  /** Starts polling (does nothing when the store has no outbox). */
  start(): void {
    if (this.timer || !this.store.claimWebhooks || this.stopping.signal.aborted) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.settings.pollMs);
    this.timer.unref();
  }

  /** One poll: claims and sends what is due. Never rejects; overlapping calls share one pass. */
  poll(): Promise<void> {
    this.pass ??= this.sendDue().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  /** Stops polling and aborts the attempts in flight (they are retried after their lease, by any process). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort(new Error('the service is shutting down'));
    await this.pass;
  }

  private async sendDue(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    let claimed: ClaimedDelivery[];
    try {
      const leaseMs = this.settings.timeoutMs + 20_000;
      claimed = (await this.store.claimWebhooks?.(Date.now(), leaseMs, this.settings.concurrency)) ?? [];
    } catch (error) {
      if (isStoreUnavailable(error)) this.logger.debug('webhook poll skipped: the job store is unreachable', { error: String(error) });
      else this.logger.error('could not claim webhook deliveries', { error: String(error) });
      return;
    }
    await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
  }

  /** Sends one attempt and records its outcome; never rejects. */
  private async deliver({ uid, attempt }: ClaimedDelivery): Promise<void> {
    try {
      const job = await this.store.get(uid);
      if (!job?.webhook || !isFinal(job.status)) {
        this.logger.warn('a queued webhook has no final job any more (record expired?); dropped', { uid });
        return await this.settle(uid, undefined, 'dropped');
      }
      const body = JSON.stringify(await webhookEvent(job, this.links(job.webhook.baseUrl)));
      const headers = { ...signWebhook(this.settings.secret, webhookId(uid), body) };
      const problem = await postWebhook(job.webhook.url, body, {
        headers,
        timeoutMs: this.settings.timeoutMs,
        allowPrivateAddresses: this.settings.allowPrivateAddresses,
        signal: this.stopping.signal,
      }).then(
        (status) => (status >= 200 && status <= 299 ? undefined : `HTTP ${status}`),
        (error: unknown) => String(error instanceof Error ? error.message : error),
      );
      if (this.stopping.signal.aborted && problem !== undefined) return; // shutdown: the lease hands it to the next poll
      if (problem === undefined) {
        this.logger.info('webhook delivered', { uid, attempt });
        return await this.settle(uid, undefined, 'delivered');
      }
      const wait = this.settings.retryDelaysMs[attempt - 1];
      if (wait === undefined) {
        this.logger.warn('webhook given up after its last attempt', { uid, attempt, problem });
        return await this.settle(uid, undefined, 'gave_up');
      }
      this.logger.warn('webhook attempt failed; will retry', { uid, attempt, problem, retryInMs: wait });
      await this.settle(uid, Date.now() + wait, 'failed');
    } catch (error) {
      // The store failed (read or settle): the lease ends and a later poll tries again.
      this.logger.warn('webhook attempt could not be recorded; it will be retried after its lease', { uid, attempt, error: String(error) });
    }
  }

  private async settle(uid: string, nextDueMs: number | undefined, outcome: 'delivered' | 'failed' | 'gave_up' | 'dropped'): Promise<void> {
    this.metrics.webhookDelivery(outcome);
    await this.store.settleWebhook?.(uid, nextDueMs);
  }
}
