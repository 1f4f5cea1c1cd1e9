-- tryAcquire: take permits from a semaphore if enough are free. Mirrors Redisson
-- RedissonSemaphore#tryAcquireAsync(permits).
-- @keys 1
-- KEYS[1]  the semaphore (the object's raw name): a string holding the number of free permits
-- ARGV[1]  permits wanted, an integer >= 1
-- Returns  1 when KEYS[1] exists and holds >= ARGV[1]: it was decremented by ARGV[1];
--          0 otherwise (a missing key is no permits at all), and nothing changes.
--          Nothing is published: taking permits frees nothing.
local rcall = redis.call
local value = rcall('get', KEYS[1])
if value ~= false and tonumber(value) >= tonumber(ARGV[1]) then
  rcall('decrby', KEYS[1], ARGV[1])
  return 1
end
return 0
