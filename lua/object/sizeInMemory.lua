-- sizeInMemory: the memory an object's keys take. Same effect as Redisson's
-- RedissonObject#sizeInMemoryAsync(List) (the overrides of FairLock, FencedLock and
-- PermitExpirableSemaphore; an object of one key is sent MEMORY USAGE instead).
-- @keys variadic
-- KEYS     the object's keys (see object/expire)
-- Returns  the sum of MEMORY USAGE over the keys that exist, in bytes (0 when none exists).
local rcall = redis.call
local total = 0
for i = 1, #KEYS do
  local size = rcall('memory', 'usage', KEYS[i])
  if size ~= false then
    total = total + size
  end
end
return total
