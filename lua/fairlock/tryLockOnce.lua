-- tryLockOnce: one attempt at a FairLock that never queues (tryLock() without a wait time). Mirrors Redisson
-- RedissonFairLock#tryLockInnerAsync with EVAL_NULL_BOOLEAN, and with ARGV[5] given,
-- RedissonNonReentrantFairLock's (4.4.0+). Note the ARGV order: now before wait, as in Redisson.
-- @keys 3
-- KEYS[1]  the lock hash N
-- KEYS[2]  the waiting queue, redisson_lock_queue:{N}
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{N}
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease when none was given
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- ARGV[3]  now: the calling client's wall clock in ms
-- ARGV[4]  wait in ms subtracted from the remaining deadlines when taken (fairLockWaitTimeout)
-- ARGV[5]  optional: the error message of a re-entry (NON_REENTRANT_REACQUIRE) for the non-reentrant lock
-- Returns  nil when taken or re-entered (as tryLockInner; with ARGV[5] a re-entry is the error reply
--          ARGV[5]); 1 when not: the queue is left as it was, apart from the expired waiters dropped
--          from its head.
local rcall = redis.call
local lock, queue, deadlines = KEYS[1], KEYS[2], KEYS[3]
local lease, owner, now, wait = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

while true do
  local head = rcall('lindex', queue, 0)
  if head == false then break end
  local deadline = rcall('zscore', deadlines, head)
  if deadline == false or tonumber(deadline) > now then break end
  rcall('zrem', deadlines, head)
  rcall('lpop', queue)
end

if rcall('exists', lock) == 0 and (rcall('exists', queue) == 0 or rcall('lindex', queue, 0) == owner) then
  rcall('lpop', queue)
  rcall('zrem', deadlines, owner)
  local waiting = rcall('zrange', deadlines, 0, -1)
  for i = 1, #waiting do
    rcall('zincrby', deadlines, -wait, waiting[i])
  end
  rcall('hset', lock, owner, 1)
  rcall('pexpire', lock, lease)
  return nil
end

if rcall('hexists', lock, owner) == 1 then
  if ARGV[5] ~= nil then
    return redis.error_reply(ARGV[5])
  end
  rcall('hincrby', lock, owner, 1)
  rcall('pexpire', lock, lease)
  return nil
end
return 1
