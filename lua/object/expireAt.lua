-- expireAt: make an object's keys expire at an absolute time. Same effect as Redisson's
-- RedissonExpirable#expireAtAsync (expire(Instant), expireAt(long), expireIfSet/NotSet/Greater/Less(Instant)).
-- @keys variadic
-- KEYS     the object's keys (see object/expire)
-- ARGV[1]  the expiry: Unix time in ms (a past time deletes the keys, as PEXPIREAT does)
-- ARGV[2]  optional: a PEXPIREAT option (Redis 7.0+): NX, XX, GT or LT; absent or '': none
-- Returns  1 when at least one key got the new expiry, 0 when none did.
local rcall = redis.call
local option = ARGV[2] or ''
local result = 0
for i = 1, #KEYS do
  local set
  if option ~= '' then
    set = rcall('pexpireat', KEYS[i], ARGV[1], option)
  else
    set = rcall('pexpireat', KEYS[i], ARGV[1])
  end
  if set == 1 then
    result = 1
  end
end
return result
