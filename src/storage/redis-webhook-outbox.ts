import type { RedisConnection } from './redis-connection.js';
import type { ClaimedDelivery, WebhookOutbox } from './webhook-outbox.js';

/** The outbox's keys after `<namespace>::`: the sorted set the store's compare-and-set script writes, and the attempts hash. */
export const OUTBOX_KEYS = { due: 'webhooks', attempts: 'webhook-attempts' } as const;

/**
 * Claims due webhook deliveries with a lease.
 *
 * KEYS[1]  the outbox sorted set (members: job uids, scores: when due, in epoch ms)
 * KEYS[2]  the attempts hash (uid → claims so far)
 * ARGV[1]  now (epoch ms): members scored at or below it are due
 * ARGV[2]  when the lease ends (epoch ms): a claimed member is re-scored to it, so no other claim takes it before
 * ARGV[3]  at most this many members
 *
 * Returns a flat list `uid1, attempt1, uid2, attempt2, …` (attempt: 1-based number of this claim).
 */
const CLAIM_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local claimed = {}
for _, uid in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], uid)
  claimed[#claimed + 1] = uid
  claimed[#claimed + 1] = redis.call('HINCRBY', KEYS[2], uid, 1)
end
return claimed
`;

/**
 * The {@link WebhookOutbox} of a {@link RedisJobStore} (`store.outbox`): it shares the store's connection and
 * namespace, and the store's compare-and-set script adds a delivery to `<namespace>::webhooks` in the same EVAL
 * that first makes a job with a webhook final. Keys:
 *
 *   webhooks           zset  uids of jobs whose final state is still to be announced, scored by when the next
 *                            attempt is due (or its lease ends)
 *   webhook-attempts   hash  uid → attempts claimed so far
 */
export class RedisWebhookOutbox implements WebhookOutbox {
  readonly #due: string;
  readonly #attempts: string;

  /** Made by its `RedisJobStore`, which owns (and closes) the connection. */
  constructor(
    private readonly redis: RedisConnection,
    namespace: string,
  ) {
    this.#due = `${namespace}::${OUTBOX_KEYS.due}`;
    this.#attempts = `${namespace}::${OUTBOX_KEYS.attempts}`;
  }

  /** {@inheritDoc WebhookOutbox.claim} One atomic EVAL: oldest due first. */
  async claim(nowMs: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const flat = (await this.redis.run('a webhook claim', (client) =>
      client.eval(CLAIM_SCRIPT, { keys: [this.#due, this.#attempts], arguments: [String(nowMs), String(nowMs + leaseMs), String(limit)] }),
    )) as (string | number)[];
    const claimed: ClaimedDelivery[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) claimed.push({ uid: String(flat[i]), attempt: Number(flat[i + 1]) });
    return claimed;
  }

  /** {@inheritDoc WebhookOutbox.settle} */
  async settle(uid: string, nextDueMs: number | undefined): Promise<void> {
    if (nextDueMs === undefined) {
      await this.redis.run('a webhook removal', (client) => client.multi().zRem(this.#due, uid).hDel(this.#attempts, uid).exec());
    } else {
      await this.redis.run('a webhook update', (client) => client.zAdd(this.#due, { score: nextDueMs, value: uid }, { XX: true }));
    }
  }
}
