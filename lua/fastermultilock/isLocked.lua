-- isLocked: whether any value of a FasterMultiLock is held. Same effect as Redisson
-- RedissonFasterMultiLock#isLockedAsync.
-- @keys 1
-- KEYS[1]  the group hash G (layout in tryLockInner.lua)
-- ARGV[1]  now: the calling client's wall clock in ms
-- ARGV[2..] the value fields
-- Returns  1 when some value names a holder whose deadline has not passed, else 0.
local rcall = redis.call
local now = tonumber(ARGV[1])
for i = 2, #ARGV do
  local holder = rcall('hget', KEYS[1], ARGV[i])
  if holder then
    local deadline = tonumber(rcall('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
    if deadline and deadline >= now then return 1 end
  end
end
return 0
