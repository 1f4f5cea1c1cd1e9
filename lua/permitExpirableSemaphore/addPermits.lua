-- addPermits: add (or, negative, remove) available permits. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#addPermitsAsync (docs/protocol.md §6.2).
-- @keys 2
-- KEYS[1]  the semaphore N (missing: 0), KEYS[2] the channel redisson_sc:{N}
-- ARGV[1]  the change, ARGV[2] publish command
-- Returns  nothing. A positive change publishes the change itself (not the new total).
local rcall = redis.call
local available = rcall('get', KEYS[1])
if available == false then
  available = 0
end
rcall('set', KEYS[1], tonumber(available) + tonumber(ARGV[1]))
if tonumber(ARGV[1]) > 0 then
  rcall(ARGV[2], KEYS[2], ARGV[1])
end
