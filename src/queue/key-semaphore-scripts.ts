/**
 * Lua scripts of {@link KeySemaphore}: a counting semaphore per key with FIFO order, on three keys of one
 * concurrency key: `leases` (sorted set: holder uid → lease expiry, epoch ms), `waiters` (sorted set: uid
 * → queue order) and `seen` (hash: uid → when that waiter last asked, epoch ms). Times come from the Redis
 * server (`TIME`), so the clocks of the processes do not matter.
 */

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Registers a waiter at enqueue time and returns its order (a number from the sequence KEYS[3]).
 * KEYS: waiters, seen, sequence. ARGV: uid, waiterTtlMs.
 */
export const REGISTER_SCRIPT = `${NOW}
local order = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not order then
  order = redis.call('INCR', KEYS[3])
  redis.call('ZADD', KEYS[1], order, ARGV[1])
end
redis.call('HSET', KEYS[2], ARGV[1], now)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 4)
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]) * 4)
return tonumber(order)
`;

/**
 * Takes a lease for ARGV[1] when the key has a free slot and no older waiter is owed it; returns 1 when
 * held (also when ARGV[1] held it already: a new attempt of the same job), 0 when the caller must wait, -1
 * when the job was dropped while it waited (it must not run). Expired leases (a dead worker's) are removed
 * first; so are waiters that stopped asking for `waiterTtlMs`.
 * KEYS: leases, waiters, seen, dropped. ARGV: uid, limit, leaseMs, order, waiterTtlMs.
 */
export const ACQUIRE_SCRIPT = `${NOW}
local uid = ARGV[1]
local limit = tonumber(ARGV[2])
local leaseMs = tonumber(ARGV[3])
local ttl = tonumber(ARGV[5])
if redis.call('SREM', KEYS[4], uid) == 1 then
  redis.call('ZREM', KEYS[2], uid)
  redis.call('HDEL', KEYS[3], uid)
  return -1
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local function take()
  redis.call('ZADD', KEYS[1], now + leaseMs, uid)
  redis.call('PEXPIRE', KEYS[1], leaseMs * 2)
  redis.call('ZREM', KEYS[2], uid)
  redis.call('HDEL', KEYS[3], uid)
  return 1
end
if redis.call('ZSCORE', KEYS[1], uid) then return take() end
redis.call('ZADD', KEYS[2], 'NX', ARGV[4], uid)
redis.call('HSET', KEYS[3], uid, now)
redis.call('PEXPIRE', KEYS[2], ttl * 4)
redis.call('PEXPIRE', KEYS[3], ttl * 4)
local free = limit - redis.call('ZCARD', KEYS[1])
while free > 0 do
  local dropped = false
  for _, waiter in ipairs(redis.call('ZRANGE', KEYS[2], 0, free - 1)) do
    if waiter == uid then return take() end
    local seen = tonumber(redis.call('HGET', KEYS[3], waiter) or '0')
    if now - seen > ttl then
      redis.call('ZREM', KEYS[2], waiter)
      redis.call('HDEL', KEYS[3], waiter)
      dropped = true
    end
  end
  if not dropped then break end
end
return 0
`;

/** Extends ARGV[1]'s lease; returns 0 when it had lapsed (and leaves it lapsed). KEYS: leases. ARGV: uid, leaseMs. */
export const REFRESH_SCRIPT = `${NOW}
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
`;

/**
 * Drops a waiting job: its place among the waiters goes, and its next ACQUIRE answers -1 (a worker may hold
 * its queue entry between two tries, where the queue cannot remove it). Returns 0 and changes nothing when
 * ARGV[1] holds a lease (it is running: the runner ends it). KEYS: leases, waiters, seen, dropped.
 * ARGV: uid, ttlMs (how long the mark is kept).
 */
export const DROP_SCRIPT = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[2]))
return 1
`;

/** Drops ARGV[1]'s lease and its place among the waiters. KEYS: leases, waiters, seen. ARGV: uid. */
export const RELEASE_SCRIPT = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
`;
