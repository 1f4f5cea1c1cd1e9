-- expire: give an object's keys a new time to live. Same effect as Redisson's RedissonExpirable#expireAsync
-- (expire(Duration), expireIfSet/NotSet/Greater/Less(Duration); a lock object's expireAsync, which
-- RedissonMultiLock uses to re-set every member to the lease after acquiring them for twice the wait).
-- @keys variadic
-- KEYS     the object's keys: the lock hash, plus a FairLock's queue and deadlines, a FencedLock's token or a
--          PermitExpirableSemaphore's leases
-- ARGV[1]  time to live in ms
-- ARGV[2]  optional: a PEXPIRE option (Redis 7.0+): NX, XX, GT or LT; absent or '': none
-- Returns  1 when at least one key got the new TTL, 0 when none did (none exists, or the option refused all).
local rcall = redis.call
local option = ARGV[2] or ''
local result = 0
for i = 1, #KEYS do
  local set
  if option ~= '' then
    set = rcall('pexpire', KEYS[i], ARGV[1], option)
  else
    set = rcall('pexpire', KEYS[i], ARGV[1])
  end
  if set == 1 then
    result = 1
  end
end
return result
