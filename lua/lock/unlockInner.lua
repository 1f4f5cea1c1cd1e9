-- unlockInner: release one hold of an RLock. Mirrors Redisson RedissonLock#unlockInnerAsync (3.24.0+).
-- @keys 3
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{N}
-- KEYS[3]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  lease in ms applied when the lock stays held (the lock object's last lease time)
-- ARGV[3]  owner field, <clientUUID>:<threadId>
-- ARGV[4]  publish command: PUBLISH, or SPUBLISH with sharded pub/sub
-- ARGV[5]  latch TTL in ms
-- Returns  1 when fully released (hash deleted, ARGV[1] published), 0 when still held (count
--          decremented, TTL reset to ARGV[2]), nil when ARGV[3] does not hold the lock.
--          A latch already set by this request id is returned as is and nothing else happens, so a
--          re-sent unlock neither decrements twice nor reports "not owner".
local rcall = redis.call
local lock, channel, latch = KEYS[1], KEYS[2], KEYS[3]
local message, lease, owner, publish, latchTtl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]

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
rcall(publish, channel, message)
rcall('set', latch, 1, 'px', latchTtl)
return 1
