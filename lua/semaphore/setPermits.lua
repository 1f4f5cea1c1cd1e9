-- setPermits: set the number of free permits, whatever it was. Java's RSemaphore has no such method
-- since Redisson 3.5.0 (its deprecated setPermits only initialised a missing key, as trySetPermits
-- does); this is redisson-ts' own, built from the same wire steps: SET, then publish the new total as
-- every Redisson permit change does, so Java waiters wake as after an addPermits.
-- @keys 2
-- KEYS[1]  the semaphore: a string holding the number of free permits
-- KEYS[2]  the semaphore channel, redisson_sc:{N}
-- ARGV[1]  permits, any integer
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  the previous number of free permits (0 when the key was missing); KEYS[1] now holds ARGV[1]
--          without TTL, and ARGV[1] was published on KEYS[2].
local rcall = redis.call
local previous = tonumber(rcall('get', KEYS[1]) or '0')
rcall('set', KEYS[1], ARGV[1])
rcall(ARGV[2], KEYS[2], ARGV[1])
return previous
