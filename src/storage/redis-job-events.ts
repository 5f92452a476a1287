import { EventEmitter } from 'node:events';
import type { Logger } from '../domain/logger.js';
import type { JobEvents } from './job-events.js';
import { DEFAULT_REDIS_TIMEOUTS, RedisConnection, type RedisTimeouts } from './redis-connection.js';

/** Options of {@link RedisJobEvents}. */
export interface RedisJobEventsOptions {
  url: string;
  /** The job store's namespace: processes of one namespace hear each other. Default `virtual-anchor`. */
  namespace?: string;
  timeouts?: Partial<RedisTimeouts>;
  logger: Logger;
}

/** How long a failed subscription waits before it is tried again. */
const RESUBSCRIBE_MS = 5_000;

/**
 * {@link JobEvents} over Redis pub/sub (channel `<namespace>::job-ended`), so that a cancel made through any
 * process reaches the process running the job within one round trip. Two connections: one publishes, one
 * subscribes (a subscribed Redis connection runs nothing else); node-redis subscribes again after a reconnection,
 * and a first subscription that fails (Redis down at start) is retried every {@link RESUBSCRIBE_MS}. Nothing here
 * throws: announcements lost to an outage are covered by the runners' heartbeats.
 */
export class RedisJobEvents implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  private readonly publisher: RedisConnection;
  private readonly subscriber: RedisConnection;
  private readonly channel: string;
  private subscription?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: RedisJobEventsOptions) {
    const timeouts = { ...DEFAULT_REDIS_TIMEOUTS, ...options.timeouts };
    this.channel = `${options.namespace ?? 'virtual-anchor'}::job-ended`;
    this.publisher = new RedisConnection(options.url, timeouts, options.logger, 'job announcements');
    this.subscriber = new RedisConnection(options.url, timeouts, options.logger, 'job announcements');
  }

  async announce(uid: string): Promise<void> {
    try {
      await this.publisher.run('a job announcement', (client) => client.publish(this.channel, uid));
    } catch (error) {
      this.options.logger.debug('a job announcement was not sent; the runner’s heartbeat will notice', { uid, error: String(error) });
    }
  }

  listen(listener: (uid: string) => void): () => void {
    this.emitter.on('ended', listener);
    this.subscribe();
    return () => this.emitter.off('ended', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.emitter.removeAllListeners();
    await Promise.all([this.publisher.close(), this.subscriber.close()]);
  }

  /** Subscribes once; a failure is logged and retried later. */
  private subscribe(): void {
    if (this.subscription || this.closed) return;
    this.subscription = this.subscriber
      .run('a subscription', (client) => client.subscribe(this.channel, (uid) => this.emitter.emit('ended', uid)))
      .catch((error: unknown) => {
        this.options.logger.warn('could not subscribe to job announcements; retrying (running jobs still notice ends by their heartbeat)', {
          error: String(error),
        });
        this.subscription = undefined;
        if (this.closed) return;
        this.retry = setTimeout(() => this.subscribe(), RESUBSCRIBE_MS);
        this.retry.unref();
      });
  }
}
