-- delete: remove a latch. Mirrors Redisson RedissonCountDownLatch#deleteAsync.
-- @keys 2
-- KEYS[1]  the latch: a string holding the count
-- KEYS[2]  the latch channel, redisson_countdownlatch__channel__{N}
-- ARGV[1]  the message published, 1 (NEW_COUNT_MESSAGE)
-- ARGV[2]  publish command: PUBLISH or SPUBLISH
-- Returns  1 when KEYS[1] existed: it is deleted and ARGV[1] published (waiters are NOT opened: they
--          re-check only on a 0 message, as in Redisson); 0 when it did not exist (nothing published).
local rcall = redis.call
if rcall('del', KEYS[1]) == 1 then
  rcall(ARGV[2], KEYS[2], ARGV[1])
  return 1
end
return 0
