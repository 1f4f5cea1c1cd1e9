-- trySetCount: arm a latch that is not armed. Mirrors Redisson RedissonCountDownLatch#trySetCountAsync.
-- @keys 2
-- KEYS[1]  the latch (the object's raw name): a string holding the count
-- KEYS[2]  the latch channel, redisson_countdownlatch__channel__{N} (always braced)
-- ARGV[1]  the message published, 1 (NEW_COUNT_MESSAGE)
-- ARGV[2]  the count, an integer >= 1
-- ARGV[3]  publish command: PUBLISH or SPUBLISH
-- Returns  1 when KEYS[1] was missing: it now holds ARGV[2] (no TTL) and ARGV[1] was published on
--          KEYS[2] (waiters stay closed); 0 when it exists (a count above 0 is still running down).
local rcall = redis.call
if rcall('exists', KEYS[1]) == 0 then
  rcall('set', KEYS[1], ARGV[2])
  rcall(ARGV[3], KEYS[2], ARGV[1])
  return 1
end
return 0
