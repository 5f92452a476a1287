/**
 * The one Lua script {@link RedisJobStore} writes with: a compare-and-set of a job record that
 * also moves the job between index sorted sets, all in one atomic EVAL.
 *
 * KEYS[1]              the record key
 * KEYS[2 .. 1+n]       sorted sets to remove the uid from (the old status's indexes)
 * KEYS[2+n .. #KEYS]   sorted sets to add the uid to, with the given score
 * ARGV[1]              the record JSON the caller read ('' = the record must not exist yet)
 * ARGV[2]              the new record JSON
 * ARGV[3]              n, the number of sorted sets to leave
 * ARGV[4]              score (createdAt in epoch ms)
 * ARGV[5]              the uid (sorted-set member)
 *
 * Returns 1 when written, 0 when the record is not exactly ARGV[1] any more (someone else wrote
 * first: the caller re-reads and decides again).
 */
export const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
local leave = tonumber(ARGV[3])
for i = 2, leave + 1 do redis.call('ZREM', KEYS[i], ARGV[5]) end
for i = leave + 2, #KEYS do redis.call('ZADD', KEYS[i], ARGV[4], ARGV[5]) end
return 1
`;
