-- readTryLockInner: take or re-enter the read half of a ReadWriteLock.
-- Mirrors Redisson RedissonReadLock#tryLockInnerAsync.
-- @keys 2
-- KEYS[1]  the lock hash N (field `mode`, reader fields, at most one writer field)
-- KEYS[2]  this owner's timeout prefix, {N}:<clientUUID>:<threadId>:rwlock_timeout
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease (lockWatchdogTimeout at first)
-- ARGV[2]  reader field, <clientUUID>:<threadId>
-- ARGV[3]  the same owner's writer field, <clientUUID>:<threadId>:write
-- Returns  nil when taken: the reader count k went up by one, KEYS[2]:k = 1 expires in ARGV[1] ms, and
--          the hash expires in max(its PTTL, ARGV[1]) ms (in ARGV[1] ms when it was created);
--          otherwise the hash's PTTL in ms (another owner writes; -1 when it has no expiry).
--          Readers share: mode `read` admits anyone; mode `write` admits only the writer itself.
local rcall = redis.call
local lock, timeoutPrefix = KEYS[1], KEYS[2]
local lease, reader, writer = ARGV[1], ARGV[2], ARGV[3]

local mode = rcall('hget', lock, 'mode')
if mode == false then
  rcall('hset', lock, 'mode', 'read')
  rcall('hset', lock, reader, 1)
  rcall('set', timeoutPrefix .. ':1', 1)
  rcall('pexpire', timeoutPrefix .. ':1', lease)
  rcall('pexpire', lock, lease)
  return nil
end
if mode == 'read' or (mode == 'write' and rcall('hexists', lock, writer) == 1) then
  local k = rcall('hincrby', lock, reader, 1)
  local timeout = timeoutPrefix .. ':' .. k
  rcall('set', timeout, 1)
  rcall('pexpire', timeout, lease)
  -- Never shorten the hash below a longer hold of another reader.
  rcall('pexpire', lock, math.max(rcall('pttl', lock), lease))
  return nil
end
return rcall('pttl', lock)
