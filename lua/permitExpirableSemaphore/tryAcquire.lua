-- tryAcquire: take permits from a PermitExpirableSemaphore, one leased id per permit. Same effect as
-- Redisson RedissonPermitExpirableSemaphore#tryAcquireAsync(ids, timeoutDate) (docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N: a string holding the number of available permits (missing: none)
-- KEYS[2]  the leases {N}:timeout: zset, member = permit id (16 raw bytes), score = expiry (absolute ms)
-- KEYS[3]  the channel redisson_sc:{N}
-- ARGV[1]  permits wanted (n >= 1)
-- ARGV[2]  the new permits' score: now + lease, or 922337203685477 (never expires)
-- ARGV[3]  now (client clock, ms), ARGV[4] the never-expires score, ARGV[5] publish command
-- ARGV[6 .. 5+n]  the n new permit ids (raw bytes)
-- Returns  'OK' when acquired; else ':<score>' with the earliest lease expiry, when one will expire (the
--          waiter retries then at the latest), or nil when none will. First, up to n expired permits are
--          returned to the pool and the new total is published.
local rcall = redis.call
local expired = rcall('zrangebyscore', KEYS[2], 0, ARGV[3], 'limit', 0, ARGV[1])
if #expired > 0 then
  rcall('zrem', KEYS[2], unpack(expired))
  local total = rcall('incrby', KEYS[1], #expired)
  if tonumber(total) > 0 then
    rcall(ARGV[5], KEYS[3], total)
  end
end
local available = rcall('get', KEYS[1])
if available ~= false and tonumber(available) >= tonumber(ARGV[1]) then
  rcall('decrby', KEYS[1], ARGV[1])
  for i = 6, #ARGV do
    rcall('zadd', KEYS[2], ARGV[2], ARGV[i])
  end
  -- The leases live as long as the semaphore key does.
  local ttl = rcall('pttl', KEYS[1])
  if ttl > 0 then
    rcall('pexpire', KEYS[2], ttl)
  end
  return 'OK'
end
local earliest = rcall('zrange', KEYS[2], 0, 0, 'WITHSCORES')
if earliest[1] ~= nil and earliest[2] ~= ARGV[4] then
  return ':' .. tostring(earliest[2])
end
return nil
