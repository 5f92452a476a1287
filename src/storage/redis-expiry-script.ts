/**
 * The Lua script that deletes expired job records from Redis together with every index entry
 * of theirs, in one atomic EVAL, so listings and totals never count a record that is gone.
 *
 * KEYS[1]      the expiry sorted set written by {@link CAS_SCRIPT}: members are JSON arrays
 *              `[kind, owner, uid]`, scores the expiry in epoch ms
 * ARGV[1]      now, in epoch ms: members scored at or below it are deleted
 * ARGV[2]      the key prefix (`<namespace>::`)
 * ARGV[3]      at most this many records per call (the caller repeats while a batch is full)
 * ARGV[4 ..]   every job status (a final record is removed from each status's indexes)
 *
 * The index keys are built here from the member, so they are not all declared in KEYS: like the
 * rest of the store this targets a single Redis (or Sentinel), not Redis Cluster.
 *
 * Returns the number of records deleted.
 */
/**
 * Lua: deletes the record of an expiry member (JSON `[kind, owner, uid]`) with every index entry of it and its
 * member of the expiry set KEYS[1]; ARGV[2] is the key prefix, ARGV[4 ..] every job status.
 */
const DELETE_RECORD = `
local function delete_record(member)
  local entry = cjson.decode(member)
  local kind, owner, uid = entry[1], entry[2], entry[3]
  local prefix = ARGV[2]
  redis.call('UNLINK', prefix .. 'job:' .. uid)
  redis.call('ZREM', prefix .. 'list:' .. kind .. ':*:' .. owner, uid)
  for i = 4, #ARGV do
    local status = ARGV[i]
    redis.call('ZREM', prefix .. 'list:' .. kind .. ':' .. status .. ':' .. owner, uid)
    redis.call('ZREM', prefix .. 'status:' .. status .. ':*', uid)
    redis.call('ZREM', prefix .. 'status:' .. status .. ':' .. kind, uid)
  end
  redis.call('ZREM', KEYS[1], member)
end
`;

export const EXPIRE_SCRIPT = `${DELETE_RECORD}
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(members) do delete_record(member) end
return #members
`;

/**
 * The Lua script {@link RedisJobStore.delete} runs: deletes one record with every index entry of it (and its
 * expiry entry), when the record is still what the caller read. Arguments as {@link EXPIRE_SCRIPT}'s but:
 *
 * KEYS[1]      the expiry sorted set
 * KEYS[2]      the record key
 * ARGV[1]      the record JSON the caller read
 * ARGV[3]      the job's expiry member (JSON `[kind, owner, uid]`)
 *
 * Returns 1 when deleted, 0 when the record is missing, -1 when it changed since it was read (read again).
 */
export const DELETE_SCRIPT = `${DELETE_RECORD}
local current = redis.call('GET', KEYS[2])
if not current then return 0 end
if current ~= ARGV[1] then return -1 end
delete_record(ARGV[3])
return 1
`;
