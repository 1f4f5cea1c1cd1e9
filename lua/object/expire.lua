-- expire: give an object's keys a new time to live. Same effect as Redisson's RedissonExpirable#expireAsync
-- (a lock object's expireAsync, which RedissonMultiLock uses to re-set every member to the lease after
-- acquiring them for twice the wait).
-- @keys variadic
-- KEYS     the object's keys: the lock hash, plus a FairLock's queue and deadlines or a FencedLock's token
-- ARGV[1]  time to live in ms
-- Returns  1 when at least one key exists and got the new TTL, 0 when none exists.
local rcall = redis.call
local result = 0
for i = 1, #KEYS do
  if rcall('pexpire', KEYS[i], ARGV[1]) == 1 then
    result = 1
  end
end
return result
