-- forceUnlock: delete a ReadWriteLock held in one mode, whoever holds it.
-- Mirrors Redisson RedissonReadLock#forceUnlockAsync (mode `read`, message 0) and
-- RedissonWriteLock#forceUnlockAsync (mode `write`, message 1).
-- @keys 2
-- KEYS[1]  the lock hash N
-- KEYS[2]  the ReadWriteLock channel, redisson_rwlock:{N}
-- ARGV[1]  the release message: 0 for the read half, 1 for the write half
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- ARGV[3]  the mode this half may delete: read or write
-- Returns  1 when the hash was in mode ARGV[3] and was deleted (ARGV[1] published), 0 otherwise (nothing
--          changes). Readers' timeout keys are left to expire.
local rcall = redis.call
if rcall('hget', KEYS[1], 'mode') == ARGV[3] then
  rcall('del', KEYS[1])
  rcall(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
