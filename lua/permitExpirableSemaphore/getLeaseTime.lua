-- getLeaseTime: the time left on a leased permit. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#getLeaseTimeAsync (3.41.0+, docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the leases {N}:timeout, KEYS[3] the channel redisson_sc:{N}
-- ARGV[1]  the permit id (raw bytes), ARGV[2] the never-expires score, ARGV[3] now (ms), ARGV[4] publish command
-- Returns  -1 for a permit without a lease, the ms left for one with a lease, 0 when it is not held
--          (expired leases are reclaimed first).
local rcall = redis.call
local expired = rcall('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1)
if #expired > 0 then
  rcall('zrem', KEYS[2], unpack(expired))
  local total = rcall('incrby', KEYS[1], #expired)
  if tonumber(total) > 0 then
    rcall(ARGV[4], KEYS[3], total)
  end
end
local score = rcall('zscore', KEYS[2], ARGV[1])
if score ~= false then
  if tonumber(score) == tonumber(ARGV[2]) then
    return -1
  end
  return tonumber(score) - tonumber(ARGV[3])
end
return 0
