-- renewExpiration: the watchdog's batched renewal. Mirrors Redisson LockTask (3.44.0+).
-- @keys variadic
-- KEYS[1..n]  lock hashes, at most lockWatchdogBatchSize of them
-- ARGV[1]     lockWatchdogTimeout in ms
-- ARGV[i+1]   the owner field renewed for KEYS[i], <clientUUID>:<threadId>
-- Returns     an array of n integers: 1 when KEYS[i] still has the field ARGV[i+1] and was re-expired
--             to ARGV[1] ms, 0 when the field is gone (that lock is no longer ours to renew).
local rcall = redis.call
local result = {}
for i = 1, #KEYS do
  if rcall('hexists', KEYS[i], ARGV[i + 1]) == 1 then
    rcall('pexpire', KEYS[i], ARGV[1])
    result[i] = 1
  else
    result[i] = 0
  end
end
return result
