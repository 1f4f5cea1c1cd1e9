-- unlockInner: release one hold of every value of a FasterMultiLock. Same effect as Redisson
-- RedissonFasterMultiLock#unlockInnerAsync (3.38.0+, with the unlock latch).
-- @keys 3
-- KEYS[1]  the group hash G (layout in tryLockInner.lua)
-- KEYS[2]  the lock channel, redisson_lock__channel:{G}
-- KEYS[3]  the unlock latch, redisson_unlock_latch:{G}:<32-hex request id>
-- ARGV[1]  owner, <clientUUID>:<threadId>
-- ARGV[2]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[3]  lease in ms given to values that stay held (the object's last lease time)
-- ARGV[4]  publish command: PUBLISH or SPUBLISH
-- ARGV[5]  latch TTL in ms
-- ARGV[6]  now: the calling client's wall clock in ms
-- ARGV[7..] the value fields
-- Returns  1 when every value's hold ended (its three fields deleted); 0 when some stay held (counts
--          decremented, deadlines pushed to at least now + ARGV[3], G kept at least ARGV[3] ms); nil when G
--          is gone (ARGV[2] is published anyway) or a value is not held by ARGV[1] with a live deadline —
--          then, as in Redisson, the values that were held have still been decremented. ARGV[2] is published
--          on every answer but that nil (Redisson means to publish only when a value was freed, but tests a
--          number for truth, which Lua always finds true). A latch already set by this request id is returned
--          as is and nothing else happens.
local rcall = redis.call
local latched = rcall('get', KEYS[3])
if latched then return tonumber(latched) end
if rcall('exists', KEYS[1]) == 0 then
  rcall(ARGV[4], KEYS[2], ARGV[2])
  return nil
end

local owner, now, lease = ARGV[1], tonumber(ARGV[6]), tonumber(ARGV[3])
local failed, allFreed = false, true
for i = 7, #ARGV do
  local mine = ARGV[i] .. ':' .. owner
  local deadline = tonumber(rcall('hget', KEYS[1], mine .. ':expire_time'))
  if deadline and deadline >= now then
    if rcall('hincrby', KEYS[1], mine .. ':lock_count', -1) <= 0 then
      rcall('hdel', KEYS[1], mine .. ':expire_time', mine .. ':lock_count', ARGV[i])
    else
      if deadline < now + lease then rcall('hset', KEYS[1], mine .. ':expire_time', now + lease) end
      allFreed = false
    end
  else
    allFreed, failed = false, true
  end
end
if failed then return nil end
rcall(ARGV[4], KEYS[2], ARGV[2])
if allFreed then
  rcall('set', KEYS[3], 1, 'px', ARGV[5])
  return 1
end
rcall('set', KEYS[3], 0, 'px', ARGV[5])
if lease > rcall('pttl', KEYS[1]) then rcall('pexpire', KEYS[1], lease) end
return 0
