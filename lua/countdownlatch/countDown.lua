-- countDown: count a latch down by one. Mirrors Redisson RedissonCountDownLatch#countDownAsync.
-- @keys 2
-- KEYS[1]  the latch: a string holding the count
-- KEYS[2]  the latch channel, redisson_countdownlatch__channel__{N}
-- ARGV[1]  the message published at zero, 0 (ZERO_COUNT_MESSAGE)
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  the count after the decrement (Redisson's script returns nothing; callers ignore it).
--          At 0 or below KEYS[1] is deleted, so a missing latch stays "0" (DECR makes it -1, the key
--          goes); exactly at 0 ARGV[1] is published on KEYS[2], which opens every waiter.
local rcall = redis.call
local v = rcall('decr', KEYS[1])
if v <= 0 then
  rcall('del', KEYS[1])
end
if v == 0 then
  rcall(ARGV[2], KEYS[2], ARGV[1])
end
return v
