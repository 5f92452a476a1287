import type { Job, JobWebhook } from '../../domain/job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { ClaimedDelivery, WebhookOutbox } from '../../storage/webhook-outbox.js';
import { isStoreUnavailable } from '../../storage/store-unavailable-error.js';
import type { LinkBuilder } from '../links.js';
import type { Logger } from '../../domain/logger.js';
import type { MetricsRecorder } from '../metrics/metrics-recorder.js';
import { isFinal } from '../../domain/state-machine.js';
import { webhookEvent, webhookId } from './event.js';
import type { KindRegistry } from '../kinds/registry.js';
import { postWebhook } from './post-webhook.js';
import { signWebhook } from './signature.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

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
  /** Deliveries sent at once by this process, all destinations together. */
  concurrency: number;
  /** Deliveries sent at once by this process to one destination: the origin (scheme, host, port) of the webhook URL. */
  perDestination: number;
  /** Deliveries sent at once by this process for the jobs of one key. */
  perKey: number;
  /** Claimed deliveries this process holds at most, sending or waiting for a slot. */
  maxHeld: number;
  /** Lets webhook URLs reach private addresses (tests, development). */
  allowPrivateAddresses: boolean;
  /** The job kinds: the event each sends (a delivery of a kind that sends none is dropped). */
  kinds: KindRegistry;
}

/**
 * The service's limits on sending (see {@link WebhookDispatcherSettings}): 64 attempts at once in all, 4 to one
 * destination, 8 for one key's jobs; at most 1 000 claimed deliveries held.
 */
export const DELIVERY_LIMITS = { concurrency: 64, perDestination: 4, perKey: 8, maxHeld: 1_000 } as const satisfies Partial<WebhookDispatcherSettings>;

/** What one attempt's outcome is reported as (metric label `outcome`). */
export type DeliveryOutcome = 'delivered' | 'failed' | 'gave_up' | 'dropped';

/** Time a lease must still have when an attempt starts, besides the attempt's own deadline. */
const LEASE_MARGIN_MS = 10_000;

/** A claimed delivery this process holds: the job it announces, and when its lease ends (epoch ms). */
interface HeldDelivery extends ClaimedDelivery {
  job: Job & { webhook: JobWebhook };
  leaseEndsMs: number;
}

/** The held deliveries of one key to one destination that wait for a slot, oldest claim first. */
interface Lane {
  destination: string;
  owner: string;
  waiting: HeldDelivery[];
}

/**
 * Sends the webhook deliveries the job store queued in its outbox (`outbox`, written by `store`'s final
 * transitions), so a delivery survives a restart and any process sharing the store may send it; `store` is read
 * for the job a delivery announces. Each poll claims due deliveries with a lease (the attempt's deadline
 * plus a margin) and sends them signed; a 2xx removes the delivery, anything else schedules the next attempt,
 * with the same `webhook-id`, until the retry schedule is used up. The payload is built from the job record at
 * send time, so its links are fresh.
 *
 * A slow receiver delays no one else: attempts are limited per destination (the URL's origin), per key and in
 * all, and there is no batch to wait for. A claimed delivery whose destination or key has no free slot waits
 * here (its lease renewed while it waits) while the deliveries claimed with it, and those of later polls, go to
 * other destinations at once; each attempt that ends starts the next one that may go, for the key with the
 * fewest attempts in flight. Deliveries are claimed while this process holds fewer than `maxHeld`.
 */
@injectable()
export class WebhookDispatcher {
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private readonly stopping = new AbortController();
  /** Deliveries waiting for a slot, by key and destination; a lane served moves to the back (the order of ties). */
  private readonly lanes = new Map<string, Lane>();
  /** Attempts in flight, by destination and by key. */
  private readonly toDestination = new Map<string, number>();
  private readonly forKey = new Map<string, number>();
  private readonly attempts = new Set<Promise<void>>();
  /** Deliveries claimed and not yet settled or let go: waiting or in flight. */
  private held = 0;

  constructor(
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    @inject(TOKENS.WebhookOutbox) private readonly outbox: WebhookOutbox,
    @inject(SERVICES.LinkFactory) private readonly links: (baseUrl: string) => LinkBuilder,
    @inject(TOKENS.Metrics) private readonly metrics: MetricsRecorder,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    @inject(SERVICES.WebhookSettings) private readonly settings: WebhookDispatcherSettings,
  ) {}

  /** Starts polling. */
  start(): void {
    if (this.timer || this.stopping.signal.aborted) return;
    void this.poll();
    this.timer = setInterval(() => void this.poll(), this.settings.pollMs);
    this.timer.unref();
  }

  /**
   * One poll: renews the leases of waiting deliveries, claims what is due (up to `maxHeld` held) and starts
   * every attempt that has a slot. Does not wait for the attempts. Never rejects; overlapping calls share one pass.
   */
  poll(): Promise<void> {
    this.pass ??= this.claimDue().finally(() => {
      this.pass = undefined;
    });
    return this.pass;
  }

  /**
   * Stops polling, aborts the attempts in flight (they are retried after their lease, by any process) and hands
   * the waiting deliveries back to the outbox, due at once.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort(new Error('the service is shutting down'));
    await this.pass;
    const waiting = [...this.lanes.values()].flatMap((lane) => lane.waiting);
    this.lanes.clear();
    await Promise.all([
      ...this.attempts,
      ...waiting.map((delivery) => this.letGo(delivery, () => this.outbox.settle(delivery.uid, Date.now()))),
    ]);
  }

  /** Deliveries held now (waiting or in flight), for tests. */
  get heldCount(): number {
    return this.held;
  }

  private async claimDue(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    await this.renewWaiting();
    const room = this.settings.maxHeld - this.held;
    if (room <= 0) return;
    let claimed: ClaimedDelivery[];
    const nowMs = Date.now();
    try {
      claimed = await this.outbox.claim(nowMs, this.leaseMs, room);
    } catch (error) {
      if (isStoreUnavailable(error)) this.logger.debug('webhook poll skipped: the job store is unreachable', { error: String(error) });
      else this.logger.error('could not claim webhook deliveries', { error: String(error) });
      return;
    }
    this.held += claimed.length;
    await Promise.all(claimed.map((delivery) => this.hold(delivery, nowMs + this.leaseMs)));
    this.startAttempts();
  }

  /** A claim's lease: the attempt's deadline plus a margin. */
  private get leaseMs(): number {
    return this.settings.timeoutMs + 2 * LEASE_MARGIN_MS;
  }

  /** Reads the job of a claimed delivery and puts it in its lane; a delivery without a final job is dropped. */
  private async hold(delivery: ClaimedDelivery, leaseEndsMs: number): Promise<void> {
    const { uid } = delivery;
    let job: Job | undefined;
    try {
      job = await this.store.get(uid);
    } catch (error) {
      return this.letGo(delivery, () => {
        this.logger.warn('webhook delivery could not be read; it will be retried after its lease', { uid, attempt: delivery.attempt, error: String(error) });
      });
    }
    if (!job?.webhook || !isFinal(job.status)) {
      this.logger.warn('a queued webhook has no final job any more (record expired?); dropped', { uid });
      return this.letGo(delivery, () => this.settle(uid, undefined, 'dropped'));
    }
    const destination = destinationOf(job.webhook.url);
    const name = JSON.stringify([job.owner, destination]);
    const lane = this.lanes.get(name) ?? { destination, owner: job.owner, waiting: [] };
    lane.waiting.push({ ...delivery, job: job as HeldDelivery['job'], leaseEndsMs });
    this.lanes.set(name, lane);
  }

  /**
   * Starts waiting attempts while slots are free: each time the next delivery of the lane whose key has the
   * fewest attempts in flight, among the lanes with a slot of their destination and key (on a tie, the lane
   * served longest ago: a lane that got one moves to the back).
   */
  private startAttempts(): void {
    const { concurrency, perDestination, perKey } = this.settings;
    while (this.attempts.size < concurrency && !this.stopping.signal.aborted) {
      let next: [string, Lane] | undefined;
      let fewest = perKey;
      for (const entry of this.lanes) {
        const { destination, owner } = entry[1];
        const forKey = this.forKey.get(owner) ?? 0;
        if (forKey >= fewest || (this.toDestination.get(destination) ?? 0) >= perDestination) continue;
        [next, fewest] = [entry, forKey];
        if (forKey === 0) break;
      }
      if (!next) return;
      const [name, lane] = next;
      this.lanes.delete(name);
      const delivery = lane.waiting.shift()!;
      if (lane.waiting.length > 0) this.lanes.set(name, lane);
      this.startAttempt(lane, delivery);
    }
  }

  private startAttempt(lane: Lane, delivery: HeldDelivery): void {
    addTo(this.toDestination, lane.destination, 1);
    addTo(this.forKey, lane.owner, 1);
    const attempt: Promise<void> = this.letGo(delivery, () => this.deliver(delivery)).finally(() => {
      this.attempts.delete(attempt);
      addTo(this.toDestination, lane.destination, -1);
      addTo(this.forKey, lane.owner, -1);
      this.startAttempts();
    });
    this.attempts.add(attempt);
  }

  /** Lease an attempt needs left when it starts: its deadline and a margin (less is renewed first). */
  private get startLeaseMs(): number {
    return this.settings.timeoutMs + LEASE_MARGIN_MS;
  }

  /**
   * Renews the lease of every waiting delivery that could be left with less than {@link startLeaseMs} before
   * the next poll. One whose renewal failed and whose lease is too short to start on is let go (a later claim,
   * here or in another process, takes it again).
   */
  private async renewWaiting(): Promise<void> {
    const nowMs = Date.now();
    const renewals: Promise<void>[] = [];
    for (const [name, lane] of this.lanes) {
      for (const delivery of lane.waiting) {
        if (delivery.leaseEndsMs - nowMs >= this.startLeaseMs + this.settings.pollMs) continue;
        renewals.push(
          this.renew(delivery, nowMs).catch((error: unknown) => {
            const at = lane.waiting.indexOf(delivery);
            // Started meanwhile (its attempt renews or gives up on its own), or still leased long enough.
            if (at < 0 || delivery.leaseEndsMs - Date.now() >= this.startLeaseMs) return;
            lane.waiting.splice(at, 1);
            if (lane.waiting.length === 0 && this.lanes.get(name) === lane) this.lanes.delete(name);
            return this.letGo(delivery, () => {
              this.logger.warn('webhook lease could not be renewed; the delivery will be retried after its lease', { uid: delivery.uid, error: String(error) });
            });
          }),
        );
      }
    }
    await Promise.all(renewals);
  }

  /**
   * Extends a held delivery's lease past twice a claim's and a poll (a delivery that waits long is renewed about
   * every `timeoutMs + 30 s`).
   */
  private async renew(delivery: HeldDelivery, nowMs: number): Promise<void> {
    const leaseEndsMs = nowMs + 2 * this.leaseMs + this.settings.pollMs;
    await this.outbox.settle(delivery.uid, leaseEndsMs);
    delivery.leaseEndsMs = leaseEndsMs;
  }

  /** Runs `end` for a held delivery (its attempt, or what ends its stay), then counts it as no longer held; never rejects. */
  private async letGo(delivery: ClaimedDelivery, end: () => unknown): Promise<void> {
    try {
      await end();
    } catch (error) {
      this.logger.warn('webhook delivery could not be handed back; it will be retried after its lease', { uid: delivery.uid, error: String(error) });
    } finally {
      this.held -= 1;
    }
  }

  /** Sends one attempt and records its outcome; never rejects. */
  private async deliver(delivery: HeldDelivery): Promise<void> {
    const { uid, attempt, job } = delivery;
    try {
      if (delivery.leaseEndsMs - Date.now() < this.startLeaseMs) await this.renew(delivery, Date.now());
      const event = await webhookEvent(job, this.links(job.webhook.baseUrl), this.settings.kinds);
      if (!event) {
        this.logger.warn('webhook dropped: its job kind sends no webhook here', { uid, kind: job.kind });
        return await this.settle(uid, undefined, 'dropped');
      }
      const body = JSON.stringify(event);
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
      // The store failed (renewal, settle): the lease ends and a later poll tries again.
      this.logger.warn('webhook attempt could not be recorded; it will be retried after its lease', { uid, attempt, error: String(error) });
    }
  }

  private async settle(uid: string, nextDueMs: number | undefined, outcome: DeliveryOutcome): Promise<void> {
    this.metrics.webhookDelivery(outcome);
    await this.outbox.settle(uid, nextDueMs);
  }
}

/** Adds `by` to the count of `key`, forgetting counts that reach 0. */
function addTo(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

/** Where a webhook goes, for its slots: the URL's origin (scheme, host and port), or the URL when it has none. */
function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
