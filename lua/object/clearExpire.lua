-- clearExpire: remove the time to live of an object's keys. Same effect as Redisson's
-- RedissonExpirable#clearExpireAsync(String...) (the overrides of FairLock, FencedLock and
-- PermitExpirableSemaphore; an object of one key is sent PERSIST instead).
-- @keys variadic
-- KEYS     the object's keys (see object/expire)
-- Returns  1 when at least one key had a TTL and lost it, 0 otherwise.
local rcall = redis.call
local result = 0
for i = 1, #KEYS do
  if rcall('persist', KEYS[i]) == 1 then
    result = 1
  end
end
return result
