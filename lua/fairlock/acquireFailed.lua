-- acquireFailed: a waiter that gave up (its wait ran out, it was aborted, or its acquire failed) leaves the
-- FairLock queue. Mirrors Redisson RedissonFairLock#acquireFailedAsync, plus one addition: when the
-- leaver headed the queue and the lock is free, the new head is told (a wake-up the leaver may have
-- taken with it would otherwise leave the new head asleep on a free lock until its retry delay).
-- @keys 4
-- KEYS[1]  the waiting queue, redisson_lock_queue:{N}
-- KEYS[2]  the waiters' deadlines, redisson_lock_timeout:{N}
-- KEYS[3]  the lock hash N
-- KEYS[4]  the lock's channel, redisson_lock__channel:{N}; a waiter's own channel is KEYS[4]:<its field>
-- ARGV[1]  owner field of the leaver, <clientUUID>:<threadId>
-- ARGV[2]  the wait in ms the leaver queued with (its wait time, or fairLockWaitTimeout): every waiter
--          behind it gets a deadline that much earlier
-- ARGV[3]  publish command: PUBLISH or SPUBLISH
-- ARGV[4]  the wake-up message, 0 (UNLOCK_MESSAGE)
-- Returns  nil. Running it twice is harmless: a field not in the queue moves no deadline.
local rcall = redis.call
local queue, deadlines, lock, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, wait = ARGV[1], tonumber(ARGV[2])

local waiting = rcall('lrange', queue, 0, -1)
local at = #waiting + 1
for i = 1, #waiting do
  if waiting[i] == owner then
    at = i
    break
  end
end
for i = at + 1, #waiting do
  rcall('zincrby', deadlines, -wait, waiting[i])
end
rcall('zrem', deadlines, owner)
rcall('lrem', queue, 0, owner)

if at == 1 and rcall('exists', lock) == 0 then
  local head = rcall('lindex', queue, 0)
  if head ~= false then
    rcall(ARGV[3], channel .. ':' .. head, ARGV[4])
  end
end
return nil
