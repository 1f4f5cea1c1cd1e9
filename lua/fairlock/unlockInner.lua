-- unlockInner: release one hold of a FairLock and tell the head of the queue. Mirrors Redisson
-- RedissonFairLock#unlockInnerAsync (3.24.0+, with the unlock latch).
-- @keys 5
-- KEYS[1]  the lock hash N
-- KEYS[2]  the waiting queue, redisson_lock_queue:{N}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{N}
-- KEYS[4]  the lock's channel, redisson_lock__channel:{N}; the head's own channel is KEYS[4]:<its field>
-- KEYS[5]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the wake-up message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  lease in ms applied when the lock stays held (the lock object's last lease time)
-- ARGV[3]  owner field, <clientUUID>:<threadId>
-- ARGV[4]  now: the calling client's wall clock in ms (expired waiters are dropped from the head first)
-- ARGV[5]  publish command: PUBLISH or SPUBLISH
-- ARGV[6]  latch TTL in ms
-- Returns  1 when released (hash deleted) and also when there was no lock at all (as Redisson: unlocking
--          a fair lock that expired is not an error) — in both cases ARGV[1] is published on the queue
--          head's channel, if anyone is queued; 0 when still held (count decremented, TTL reset to ARGV[2]);
--          nil when the lock exists but ARGV[3] does not hold it. A latch already set by this request id
--          is returned as is and nothing else happens.
local rcall = redis.call
local lock, queue, deadlines, channel, latch = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local message, lease, owner, now, publish, latchTtl = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]

local done = rcall('get', latch)
if done ~= false then
  return tonumber(done)
end

while true do
  local head = rcall('lindex', queue, 0)
  if head == false then break end
  local deadline = rcall('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now then break end
  rcall('zrem', deadlines, head)
  rcall('lpop', queue)
end

if rcall('exists', lock) == 0 then
  local head = rcall('lindex', queue, 0)
  if head ~= false then
    rcall(publish, channel .. ':' .. head, message)
  end
  rcall('set', latch, 1, 'px', latchTtl)
  return 1
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
local head = rcall('lindex', queue, 0)
if head ~= false then
  rcall(publish, channel .. ':' .. head, message)
end
return 1
