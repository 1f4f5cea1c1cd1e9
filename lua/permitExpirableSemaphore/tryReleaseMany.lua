-- tryReleaseMany: give several leased permits back, all or none. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#tryReleaseAsync(List) (docs/protocol.md §6.2), plus a request latch that
-- Redisson lacks, so a run re-sent after a lost reply answers as the first run did.
-- @keys 4
-- KEYS[1]  the semaphore N, KEYS[2] the channel redisson_sc:{N}, KEYS[3] the leases {N}:timeout
-- KEYS[4]  the request latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the number of ids, ARGV[2] now (ms), ARGV[3] publish command, ARGV[4] latch TTL (ms),
-- ARGV[5 ..] the ids (raw bytes)
-- Returns  the number released: 0, changing nothing (and setting no latch), when any id is unknown, released
--          or expired; else all expired permits are reclaimed first, the ids removed and the released count
--          (not the total) published, and the count kept in the latch. A latch already set by this request
--          id is returned as is and nothing else happens.
local rcall = redis.call
local done = rcall('get', KEYS[4])
if done ~= false then
  return tonumber(done)
end
for i = 5, #ARGV do
  local expiry = rcall('zscore', KEYS[3], ARGV[i])
  if expiry == false or tonumber(expiry) <= tonumber(ARGV[2]) then
    return 0
  end
end
local expired = rcall('zrangebyscore', KEYS[3], 0, ARGV[2], 'limit', 0, -1)
if #expired > 0 then
  rcall('zrem', KEYS[3], unpack(expired))
  local total = rcall('incrby', KEYS[1], #expired)
  if tonumber(total) > 0 then
    rcall(ARGV[3], KEYS[2], total)
  end
end
local ids = {}
for i = 5, #ARGV do
  ids[#ids + 1] = ARGV[i]
end
local released = rcall('zrem', KEYS[3], unpack(ids))
rcall('incrby', KEYS[1], released)
rcall(ARGV[3], KEYS[2], released)
rcall('set', KEYS[4], released, 'px', ARGV[4])
return released
