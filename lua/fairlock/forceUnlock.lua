-- forceUnlock: delete a FairLock whoever holds it and tell the head of the queue. Mirrors Redisson
-- RedissonFairLock#forceUnlockAsync. The queue itself stays.
-- @keys 4
-- KEYS[1]  the lock hash N
-- KEYS[2]  the waiting queue, redisson_lock_queue:{N}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{N}
-- KEYS[4]  the lock's channel, redisson_lock__channel:{N}; the head's own channel is KEYS[4]:<its field>
-- ARGV[1]  the wake-up message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  now: the calling client's wall clock in ms (expired waiters are dropped from the head first)
-- ARGV[3]  publish command: PUBLISH or SPUBLISH
-- Returns  1 when a lock was deleted (and ARGV[1] published to the head, if any), 0 when there was none.
local rcall = redis.call
local lock, queue, deadlines, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now = tonumber(ARGV[2])

while true do
  local head = rcall('lindex', queue, 0)
  if head == false then break end
  local deadline = rcall('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now then break end
  rcall('zrem', deadlines, head)
  rcall('lpop', queue)
end

if rcall('del', lock) == 1 then
  local head = rcall('lindex', queue, 0)
  if head ~= false then
    rcall(ARGV[3], channel .. ':' .. head, ARGV[1])
  end
  return 1
end
return 0
