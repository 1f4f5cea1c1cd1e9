-- tryLockInner: take or re-enter an RLock. Mirrors Redisson RedissonLock#tryLockInnerAsync.
-- @keys 1
-- KEYS[1]  the lock hash (the object's raw name)
-- ARGV[1]  lease in ms: the lease time given, or lockWatchdogTimeout when none was given
-- ARGV[2]  owner field, <clientUUID>:<threadId>
-- Returns  nil when taken: the owner's count went up by one and the hash expires in ARGV[1] ms
--          (a re-entry resets the TTL, even to a shorter one);
--          otherwise the PTTL in ms of the lock someone else holds (-1 when it has no expiry).
local rcall = redis.call
local lock, lease, owner = KEYS[1], ARGV[1], ARGV[2]

if rcall('exists', lock) == 0 or rcall('hexists', lock, owner) == 1 then
  rcall('hincrby', lock, owner, 1)
  rcall('pexpire', lock, lease)
  return nil
end
return rcall('pttl', lock)
