-- trySetPermits: initialise a semaphore that does not exist yet. Mirrors Redisson
-- RedissonSemaphore#trySetPermitsAsync(permits) and, with ARGV[3], #trySetPermitsAsync(permits,
-- timeToLive) (3.29.0+).
-- @keys 2
-- KEYS[1]  the semaphore: a string holding the number of free permits
-- KEYS[2]  the semaphore channel, redisson_sc:{N}
-- ARGV[1]  permits, any integer (Redisson accepts a negative start)
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- ARGV[3]  optional: time to live of the new key in ms
-- Returns  1 when KEYS[1] was missing: it now holds ARGV[1] (expiring in ARGV[3] ms when given) and
--          ARGV[1] was published on KEYS[2]; 0 when it already existed (nothing changes).
local rcall = redis.call
if rcall('get', KEYS[1]) ~= false then
  return 0
end
if ARGV[3] ~= nil then
  rcall('set', KEYS[1], ARGV[1], 'px', ARGV[3])
else
  rcall('set', KEYS[1], ARGV[1])
end
rcall(ARGV[2], KEYS[2], ARGV[1])
return 1
