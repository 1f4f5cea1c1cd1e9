-- tryReleaseMany: give several leased permits back, all or none. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#tryReleaseAsync(List) (docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the channel redisson_sc:{N}, KEYS[3] the leases {N}:timeout
-- ARGV[1]  the number of ids, ARGV[2] now (ms), ARGV[3] publish command, ARGV[4 ..] the ids (raw bytes)
-- Returns  the number released: 0, changing nothing, when any id is unknown, released or expired; else all
--          expired permits are reclaimed first, the ids removed and the released count (not the total)
--          published.
local rcall = redis.call
for i = 4, #ARGV do
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
for i = 4, #ARGV do
  ids[#ids + 1] = ARGV[i]
end
local released = rcall('zrem', KEYS[3], unpack(ids))
rcall('incrby', KEYS[1], released)
rcall(ARGV[3], KEYS[2], released)
return released
