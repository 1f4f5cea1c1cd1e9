-- tryRelease: give one leased permit back. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#tryReleaseAsync(permitId) (docs/protocol.md §6.2), plus a request latch that
-- Redisson lacks, so a run re-sent after a lost reply answers as the first run did.
-- @keys 4
-- KEYS[1]  the semaphore N (available permits), KEYS[2] the channel redisson_sc:{N}, KEYS[3] the leases {N}:timeout
-- KEYS[4]  the request latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the permit id (raw bytes), ARGV[2] 1, ARGV[3] now (ms), ARGV[4] publish command, ARGV[5] latch TTL (ms)
-- Returns  1 when the permit was held and had not expired; 0 when it is unknown or already released; 0 too
--          when it had expired, though it is still returned to the pool (and the new total published).
--          A latch already set by this request id is returned as is and nothing else happens. Only a run
--          that released the permit sets it: an unknown id changes nothing, and a re-send answers 0 again.
local rcall = redis.call
local done = rcall('get', KEYS[4])
if done ~= false then
  return tonumber(done)
end
local expiry = rcall('zscore', KEYS[3], ARGV[1])
if tonumber(rcall('zrem', KEYS[3], ARGV[1])) ~= 1 then
  return 0
end
local total = rcall('incrby', KEYS[1], ARGV[2])
rcall(ARGV[4], KEYS[2], total)
local released = 1
if tonumber(expiry) <= tonumber(ARGV[3]) then
  released = 0
end
rcall('set', KEYS[4], released, 'px', ARGV[5])
return released
