/**
 * Lua scripts of {@link RedisJobStore}'s webhook outbox and idempotency keys (each one atomic EVAL).
 */

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
export const CLAIM_WEBHOOKS_SCRIPT = `
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
 * Deletes an idempotency key only while it is a reservation (its JSON has no `answer`), so a failed request
 * never deletes the answer a concurrent winner saved.
 *
 * KEYS[1]  the idempotency key
 */
export const RELEASE_RESERVATION_SCRIPT = `
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
if cjson.decode(raw).answer then return 0 end
return redis.call('DEL', KEYS[1])
`;
