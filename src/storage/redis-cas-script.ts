/**
 * The one Lua script {@link RedisJobStore} writes with: a compare-and-set of a job record that
 * also moves the job between index sorted sets and schedules the record's expiry, all in one
 * atomic EVAL.
 *
 * KEYS[1]              the record key
 * KEYS[2]              the expiry sorted set (members: expiry members, scores: expiry in epoch ms)
 * KEYS[3 .. 2+n]       sorted sets to remove the uid from (the old status's indexes)
 * KEYS[3+n .. #KEYS]   sorted sets to add the uid to, with the given score
 * ARGV[1]              the record JSON the caller read ('' = the record must not exist yet)
 * ARGV[2]              the new record JSON
 * ARGV[3]              n, the number of sorted sets to leave
 * ARGV[4]              score (createdAt in epoch ms)
 * ARGV[5]              the uid (sorted-set member)
 * ARGV[6]              when the new record is final: its expiry in epoch ms; '' otherwise
 * ARGV[7]              the record key's TTL in ms, set when the record first becomes final (a safety
 *                      net a little longer than the expiry: the sweeper deletes it first)
 * ARGV[8]              the job's member of the expiry set
 * ARGV[9]              the webhook outbox sorted set, when the new record has a webhook ('' otherwise): the
 *                      first write that makes the record final adds the uid, scored ARGV[10] (due at once),
 *                      so the delivery is queued atomically with the final state
 * ARGV[10]             now, in epoch ms
 *
 * A record that is final already keeps its first expiry (and TTL: `SET ... KEEPTTL`, Redis 6+)
 * when it is written again; a record that is not final is not in the expiry set.
 *
 * Returns 1 when written, 0 when the record is not exactly ARGV[1] any more (someone else wrote
 * first: the caller re-reads and decides again).
 */
export const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
if ARGV[6] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[8])
elseif redis.call('ZSCORE', KEYS[2], ARGV[8]) then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[7])
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[8])
  if ARGV[9] ~= '' then redis.call('ZADD', ARGV[9], 'NX', ARGV[10], ARGV[5]) end
end
local leave = tonumber(ARGV[3])
for i = 3, leave + 2 do redis.call('ZREM', KEYS[i], ARGV[5]) end
for i = leave + 3, #KEYS do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[5]) end
return 1
`;
