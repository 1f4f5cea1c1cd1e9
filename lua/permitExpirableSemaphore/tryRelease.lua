-- tryRelease: give one leased permit back. Same effect as Redisson
-- RedissonPermitExpirableSemaphore#tryReleaseAsync(permitId) (docs/protocol.md §6.2).
-- @keys 3
-- KEYS[1]  the semaphore N (available permits), KEYS[2] the channel redisson_sc:{N}, KEYS[3] the leases {N}:timeout
-- ARGV[1]  the permit id (raw bytes), ARGV[2] 1, ARGV[3] now (ms), ARGV[4] publish command
-- Returns  1 when the permit was held and had not expired; 0 when it is unknown or already released; 0 too
--          when it had expired, though it is still returned to the pool (and the new total published).
local rcall = redis.call
local expiry = rcall('zscore', KEYS[3], ARGV[1])
if tonumber(rcall('zrem', KEYS[3], ARGV[1])) ~= 1 then
  return 0
end
local total = rcall('incrby', KEYS[1], ARGV[2])
rcall(ARGV[4], KEYS[2], total)
if tonumber(expiry) <= tonumber(ARGV[3]) then
  return 0
end
return 1
