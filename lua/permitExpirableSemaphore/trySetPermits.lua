-- trySetPermits: set the available permits of a semaphore that does not exist yet. Same effect as
-- Redisson RedissonPermitExpirableSemaphore#trySetPermitsAsync (docs/protocol.md §6.2).
-- @keys 2
-- KEYS[1]  the semaphore N, KEYS[2] the channel redisson_sc:{N}
-- ARGV[1]  permits, ARGV[2] publish command
-- Returns  1 when N was missing (now set, and the count published), 0 otherwise (nothing changes).
local rcall = redis.call
if rcall('get', KEYS[1]) == false then
  rcall('set', KEYS[1], ARGV[1])
  rcall(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
