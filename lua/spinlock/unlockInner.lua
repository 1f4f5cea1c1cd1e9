-- unlockInner: release one hold of a SpinLock. Mirrors Redisson RedissonSpinLock#unlockInnerAsync
-- (3.24.0+): RLock's unlock without the publish, since spin lock waiters poll instead of subscribing.
-- @keys 2
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  lease in ms applied when the lock stays held (the lock object's last lease time)
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- ARGV[3]  latch TTL in ms
-- Returns  1 when fully released (hash deleted), 0 when still held (count decremented, TTL reset to
--          ARGV[1]), nil when ARGV[2] does not hold the lock. A latch already set by this request id
--          is returned as is and nothing else happens, so a re-sent unlock never counts twice.
local rcall = redis.call
local lock, latch = KEYS[1], KEYS[2]
local lease, owner, latchTtl = ARGV[1], ARGV[2], ARGV[3]

local done = rcall('get', latch)
if done ~= false then
  return tonumber(done)
end
if rcall('hexists', lock, owner) == 0 then
  return nil
end
if rcall('hincrby', lock, owner, -1) > 0 then
  rcall('pexpire', lock, lease)
  rcall('set', latch, 0, 'px', latchTtl)
  return 0
end
rcall('del', lock)
rcall('set', latch, 1, 'px', latchTtl)
return 1
