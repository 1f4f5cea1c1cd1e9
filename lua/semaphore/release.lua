-- release: give permits back to a semaphore. Mirrors Redisson RedissonSemaphore#releaseAsync(permits).
-- @keys 2
-- KEYS[1]  the semaphore: a string holding the number of free permits (created when missing)
-- KEYS[2]  the semaphore channel, redisson_sc:{N}
-- ARGV[1]  permits released, an integer >= 1
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  the new number of free permits, which is also what is published on KEYS[2]: each
--          subscribed process wakes up to that many of its waiters. (Redisson ignores the reply.)
--          Permits are anonymous: anyone may release, whether or not it acquired.
local rcall = redis.call
local value = rcall('incrby', KEYS[1], ARGV[1])
rcall(ARGV[2], KEYS[2], value)
return value
