-- setPermits: make the semaphore's size (available + leased) p. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#setPermitsAsync (docs/protocol.md §6.2); no reclaim first.
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the channel redisson_sc:{N}, KEYS[3] the leases {N}:timeout
-- ARGV[1]  the size p, ARGV[2] publish command
-- Returns  nothing. Missing N: set to p; else available moves by p - (available + leased); p is published
--          unless the size already was p.
local rcall = redis.call
local available = rcall('get', KEYS[1])
if available == false then
  rcall('set', KEYS[1], ARGV[1])
  rcall(ARGV[2], KEYS[2], ARGV[1])
  return
end
local size = rcall('zcount', KEYS[3], 0, '+inf') + tonumber(available)
if size == tonumber(ARGV[1]) then
  return
end
rcall('incrby', KEYS[1], tonumber(ARGV[1]) - size)
rcall(ARGV[2], KEYS[2], ARGV[1])
