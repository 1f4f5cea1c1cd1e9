-- tryLockInner: take or re-enter a FencedLock and draw the next fencing token, in one step.
-- Mirrors Redisson RedissonFencedLock#tryLockInnerAsync (3.19.0+), the token-returning form; the plain
-- lock()/tryLock() form runs the same commands and only returns nil instead of the pair.
-- @keys 2
-- KEYS[1]  the lock hash (the object's raw name), laid out as an RLock's
-- KEYS[2]  the token counter, redisson_lock_token:{N} (a string holding a non-negative integer)
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease when none was given
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- Returns  {-1, token} when taken (a re-entry too): the counter went up by one (token is its new
--          value, >= 1), the owner's count by one, and the hash expires in ARGV[1] ms;
--          otherwise {pttl, -1}, pttl being the PTTL in ms of the lock someone else holds (-1 when
--          it has no expiry), and nothing changes. A caller tells the two apart by the token (never
--          -1 when taken), not by the first element, which is -1 in both for a hash without expiry.
local rcall = redis.call
local lock, counter = KEYS[1], KEYS[2]
local lease, owner = ARGV[1], ARGV[2]

if rcall('exists', lock) == 0 or rcall('hexists', lock, owner) == 1 then
  local token = rcall('incr', counter)
  rcall('hincrby', lock, owner, 1)
  rcall('pexpire', lock, lease)
  return {-1, token}
end
return {rcall('pttl', lock), -1}
