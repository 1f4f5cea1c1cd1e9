-- readIsLocked: whether the read half is locked. Mirrors Redisson RedissonReadLock#isLocked (3.24.0+).
-- @keys 1
-- KEYS[1]  the lock hash N
-- Returns  1 when mode is `read`, or mode is `write` and the hash has more than `mode` and the writer
--          field (the writer also holds read locks); else 0.
local rcall = redis.call
local mode = rcall('hget', KEYS[1], 'mode')
if mode == 'read' or (mode == 'write' and rcall('hlen', KEYS[1]) > 2) then
  return 1
end
return 0
