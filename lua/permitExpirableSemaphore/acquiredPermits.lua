-- acquiredPermits: the number of leased permits, after reclaiming expired leases. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#acquiredPermitsAsync (docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the leases {N}:timeout, KEYS[3] the channel redisson_sc:{N}
-- ARGV[1]  now (ms), ARGV[2] publish command
-- Returns  the leased permits.
local rcall = redis.call
local expired = rcall('zrangebyscore', KEYS[2], 0, ARGV[1], 'limit', 0, -1)
if #expired > 0 then
  rcall('zrem', KEYS[2], unpack(expired))
  local total = rcall('incrby', KEYS[1], #expired)
  if tonumber(total) > 0 then
    rcall(ARGV[2], KEYS[3], total)
  end
end
return rcall('zcount', KEYS[2], 0, '+inf')
