-- addPermits: add (or, with a negative ARGV[1], remove) free permits. Mirrors Redisson
-- RedissonSemaphore#addPermitsAsync(permits); the publish is Redisson 3.15.6+.
-- @keys 2
-- KEYS[1]  the semaphore: a string holding the number of free permits (missing counts as 0)
-- KEYS[2]  the semaphore channel, redisson_sc:{N}
-- ARGV[1]  permits to add, any integer; the result may go negative
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  the new number of free permits: KEYS[1] is set to it (no TTL change beyond SET's: SET
--          clears a TTL, as in Redisson) and it is published on KEYS[2], even when negative (a Java
--          subscriber then wakes nobody; so does ours).
local rcall = redis.call
local value = tonumber(rcall('get', KEYS[1]) or '0') + tonumber(ARGV[1])
rcall('set', KEYS[1], value)
rcall(ARGV[2], KEYS[2], value)
return value
