-- trySetPermits: set the available permits of a semaphore that does not exist yet. Same effect as
-- Redisson RedissonPermitExpirableSemaphore#trySetPermitsAsync (docs/protocol.md §6.2), plus a request latch that
-- Redisson lacks, so a run re-sent after a lost reply answers as the first run did.
-- @keys 3
-- KEYS[1]  the semaphore N, KEYS[2] the channel redisson_sc:{N}
-- KEYS[3]  the request latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  permits, ARGV[2] publish command, ARGV[3] latch TTL (ms)
-- Returns  1 when N was missing (now set, the count published, and 1 kept in the latch), 0 otherwise
--          (nothing changes, no latch is set). A latch already set by this request id is returned as is
--          and nothing else happens.
local rcall = redis.call
local done = rcall('get', KEYS[3])
if done ~= false then
  return tonumber(done)
end
if rcall('get', KEYS[1]) == false then
  rcall('set', KEYS[1], ARGV[1])
  rcall(ARGV[2], KEYS[2], ARGV[1])
  rcall('set', KEYS[3], 1, 'px', ARGV[3])
  return 1
end
return 0
