-- tryLockInner: take a NonReentrantLock. Mirrors Redisson RedissonNonReentrantLock#tryLockInnerAsync
-- (4.4.0+): RLock's acquire, except that the owner asking again gets an error instead of a re-entry.
-- @keys 1
-- KEYS[1]  the lock hash (the object's raw name), laid out as an RLock's (the count is always 1)
-- ARGV[1]  lease in ms: the lease time given, or the object's last lease when none was given
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- ARGV[3]  the error message of a re-entry, NON_REENTRANT_REACQUIRE
-- Returns  nil when taken: field ARGV[2] = 1 and the hash expires in ARGV[1] ms;
--          an error reply with message ARGV[3] when ARGV[2] already holds it (nothing changes: the
--          count stays 1, the TTL is not reset);
--          otherwise the PTTL in ms of the lock someone else holds (-1 when it has no expiry).
local rcall = redis.call
local lock, lease, owner = KEYS[1], ARGV[1], ARGV[2]

if rcall('exists', lock) == 0 then
  rcall('hincrby', lock, owner, 1)
  rcall('pexpire', lock, lease)
  return nil
end
if rcall('hexists', lock, owner) == 1 then
  return redis.error_reply(ARGV[3])
end
return rcall('pttl', lock)
