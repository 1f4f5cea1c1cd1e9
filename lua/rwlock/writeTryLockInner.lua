-- writeTryLockInner: take or re-enter the write half of a ReadWriteLock.
-- Mirrors Redisson RedissonWriteLock#tryLockInnerAsync.
-- @keys 1
-- KEYS[1]  the lock hash N
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease (lockWatchdogTimeout at first)
-- ARGV[2]  writer field, <clientUUID>:<threadId>:write
-- Returns  nil when taken: a free hash becomes mode `write` with ARGV[2] = 1 expiring in ARGV[1] ms; a
--          re-entry increments ARGV[2] and ADDS ARGV[1] to the remaining PTTL (Redisson 3.5.5+);
--          otherwise the hash's PTTL in ms. Any reader, even this owner, blocks a writer (no upgrade).
local rcall = redis.call
local lock, lease, writer = KEYS[1], ARGV[1], ARGV[2]

local mode = rcall('hget', lock, 'mode')
if mode == false then
  rcall('hset', lock, 'mode', 'write')
  rcall('hset', lock, writer, 1)
  rcall('pexpire', lock, lease)
  return nil
end
if mode == 'write' and rcall('hexists', lock, writer) == 1 then
  rcall('hincrby', lock, writer, 1)
  rcall('pexpire', lock, rcall('pttl', lock) + lease)
  return nil
end
return rcall('pttl', lock)
