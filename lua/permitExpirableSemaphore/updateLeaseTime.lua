-- updateLeaseTime: give a leased permit a new expiry. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#updateLeaseTimeAsync (docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the leases {N}:timeout, KEYS[3] the channel redisson_sc:{N}
-- ARGV[1]  the permit id (raw bytes), ARGV[2] its new score (now + lease), ARGV[3] now (ms), ARGV[4] publish command
-- Returns  1 when the permit is held (expired leases are reclaimed first, so an expired one is not), else 0.
local rcall = redis.call
local expired = rcall('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, -1)
if #expired > 0 then
  rcall('zrem', KEYS[2], unpack(expired))
  local total = rcall('incrby', KEYS[1], #expired)
  if tonumber(total) > 0 then
    rcall(ARGV[4], KEYS[3], total)
  end
end
if rcall('zscore', KEYS[2], ARGV[1]) ~= false then
  rcall('zadd', KEYS[2], ARGV[2], ARGV[1])
  return 1
end
return 0
