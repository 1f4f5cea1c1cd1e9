-- writeUnlockInner: release one write hold. Mirrors Redisson RedissonWriteLock#unlockInnerAsync (3.44.0+).
-- @keys 3
-- KEYS[1]  the lock hash N
-- KEYS[2]  the ReadWriteLock channel, redisson_rwlock:{N}
-- KEYS[3]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the release message, 1 (READ_UNLOCK_MESSAGE: every waiter wakes, so all readers can enter)
-- ARGV[2]  lease in ms applied when the write lock stays held (the lock object's last lease time)
-- ARGV[3]  writer field, <clientUUID>:<threadId>:write
-- ARGV[4]  publish command: PUBLISH or SPUBLISH
-- ARGV[5]  latch TTL in ms
-- Returns  0 still held (count decremented, hash re-expired to ARGV[2]);
--          1 write lock released: the hash is deleted and ARGV[1] published, or — when the same owner
--          still holds read locks — mode becomes `read` (the downgrade) and ARGV[1] is published too, so
--          that readers parked behind the writer enter now (Redisson publishes nothing on a downgrade, and
--          its readers sleep until the lease runs out: a deliberate deviation, COMPATIBILITY.md);
--          nil when ARGV[3] does not hold the write lock, or the hash is gone (then ARGV[1] is published);
--          a nil sets no latch, so a re-sent run answers nil again.
--          A latch already set by this request id is returned as is and nothing else happens.
local rcall = redis.call
local lock, channel, latch = KEYS[1], KEYS[2], KEYS[3]
local message, lease, writer, publish, latchTtl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

local done = rcall('get', latch)
if done ~= false then
  return tonumber(done)
end
local mode = rcall('hget', lock, 'mode')
if mode == false then
  -- "Not held" sets no latch (Redisson's sets 1 here, so its re-sent unlock would answer "released").
  rcall(publish, channel, message)
  return nil
end
if mode ~= 'write' or rcall('hexists', lock, writer) == 0 then
  return nil
end
if rcall('hincrby', lock, writer, -1) > 0 then
  rcall('pexpire', lock, lease)
  rcall('set', latch, 0, 'px', latchTtl)
  return 0
end
rcall('hdel', lock, writer)
if rcall('hlen', lock) == 1 then
  rcall('del', lock)
  rcall(publish, channel, message)
else
  -- Only this owner's read holds remain: they keep the lock, now shared, which every parked reader may
  -- enter. Redisson stays silent here; READ_UNLOCK_MESSAGE wakes all waiters, Java's included.
  rcall('hset', lock, 'mode', 'read')
  rcall(publish, channel, message)
end
rcall('set', latch, 1, 'px', latchTtl)
return 1
