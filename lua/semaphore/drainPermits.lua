-- drainPermits: take every free permit at once. Mirrors Redisson RedissonSemaphore#drainPermitsAsync.
-- @keys 1
-- KEYS[1]  the semaphore: a string holding the number of free permits
-- Returns  0 when KEYS[1] is missing (nothing changes); otherwise its value before the call (which
--          may be negative or 0), and KEYS[1] now holds 0. Nothing is published: no permit was freed.
local rcall = redis.call
local value = rcall('get', KEYS[1])
if value == false then
  return 0
end
rcall('set', KEYS[1], 0)
return tonumber(value)
