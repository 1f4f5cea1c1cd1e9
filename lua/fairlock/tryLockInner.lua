-- tryLockInner: take, re-enter or queue for a FairLock (the waiting form). Mirrors Redisson
-- RedissonFairLock#tryLockInnerAsync with EVAL_LONG (3.45.0+ semantics), and with ARGV[5] given,
-- RedissonNonReentrantFairLock's (4.4.0+), whose owner asking again gets an error instead of a re-entry.
-- @keys 3
-- KEYS[1]  the lock hash N, laid out as an RLock's (<clientUUID>:<threadId> -> hold count)
-- KEYS[2]  the waiting queue, redisson_lock_queue:{N}: a list of owner fields, head first
-- KEYS[3]  the waiters' deadlines, redisson_lock_timeout:{N}: a zset, owner field -> absolute ms
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease when none was given
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- ARGV[3]  the waiter's wait in ms: the call's wait time, or fairLockWaitTimeout when it has none
-- ARGV[4]  now: the calling client's wall clock in ms
-- ARGV[5]  optional: the error message of a re-entry (NON_REENTRANT_REACQUIRE) for the non-reentrant lock
-- Returns  nil when taken (free and nobody queued, or ARGV[2] heads the queue: it leaves the queue, every
--          other deadline drops by ARGV[3], field = 1, hash expires in ARGV[1] ms) or re-entered (count + 1,
--          TTL reset to ARGV[1]); with ARGV[5], a re-entry is the error reply ARGV[5] and nothing changes;
--          otherwise, when already queued, max(0, PTTL N); when not, ARGV[2] is queued at the tail with the
--          deadline ttl + ARGV[3] + ARGV[4], where ttl (returned) is the predecessor's deadline minus now,
--          or PTTL N without a predecessor (-1: no expiry, -2: no lock).
-- First, waiters whose deadline has passed are dropped from the head of the queue (nothing else moves).
local rcall = redis.call
local lock, queue, deadlines = KEYS[1], KEYS[2], KEYS[3]
local lease, owner, wait, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

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

if rcall('zscore', deadlines, owner) ~= false then
  return math.max(0, rcall('pttl', lock))
end

-- The same commands as Redisson's script (ZSCORE of the predecessor twice), so their traces compare.
local last = rcall('lindex', queue, -1)
local ttl
if last ~= false and last ~= owner and rcall('zscore', deadlines, last) ~= false then
  ttl = tonumber(rcall('zscore', deadlines, last)) - now
else
  ttl = rcall('pttl', lock)
end
if rcall('zadd', deadlines, ttl + wait + now, owner) == 1 then
  rcall('rpush', queue, owner)
end
return ttl
