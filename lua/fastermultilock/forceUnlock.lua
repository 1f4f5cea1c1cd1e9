-- forceUnlock: free every value of a FasterMultiLock whoever holds it. Same effect as Redisson
-- RedissonFasterMultiLock#forceUnlockAsync. Other values of the group are left alone.
-- @keys 2
-- KEYS[1]  the group hash G (layout in tryLockInner.lua)
-- KEYS[2]  the lock channel, redisson_lock__channel:{G}
-- ARGV[1]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- ARGV[3..] the value fields
-- Returns  the number of values that were held (their holder's three fields deleted); ARGV[1] is published
--          in every case.
local rcall = redis.call
local removed = 0
for i = 3, #ARGV do
  local holder = rcall('hget', KEYS[1], ARGV[i])
  if holder then
    removed = removed + rcall('hdel', KEYS[1], ARGV[i])
    rcall('hdel', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time', ARGV[i] .. ':' .. holder .. ':lock_count')
  end
end
rcall(ARGV[2], KEYS[2], ARGV[1])
return removed
