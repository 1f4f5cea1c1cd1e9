-- releaseIfExists: give permits back only to a semaphore that exists. Mirrors Redisson
-- RedissonSemaphore#releaseIfExistsAsync(permits) (4.0.0+).
-- @keys 2
-- KEYS[1]  the semaphore: a string holding the number of free permits
-- KEYS[2]  the semaphore channel, redisson_sc:{N}
-- ARGV[1]  permits released, an integer >= 1
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  0 when KEYS[1] does not exist (nothing changes, nothing is published);
--          1 otherwise: KEYS[1] went up by ARGV[1] and its new value was published on KEYS[2].
local rcall = redis.call
if rcall('exists', KEYS[1]) == 0 then
  return 0
end
local value = rcall('incrby', KEYS[1], ARGV[1])
rcall(ARGV[2], KEYS[2], value)
return 1
