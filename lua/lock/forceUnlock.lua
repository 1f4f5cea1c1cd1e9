-- forceUnlock: delete an RLock whoever holds it. Mirrors Redisson RedissonLock#forceUnlockAsync.
-- @keys 2
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{N}
-- ARGV[1]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  1 when a lock was deleted (and ARGV[1] published), 0 when there was none.
local rcall = redis.call
if rcall('del', KEYS[1]) == 1 then
  rcall(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
