-- renewExpiration: the watchdog's renewal of one FasterMultiLock hold. Same effect as Redisson
-- FastMultilockTask (3.38.0+), which renews one group per script.
-- @keys 1
-- KEYS[1]  the group hash G (layout in tryLockInner.lua)
-- ARGV[1]  lockWatchdogTimeout in ms
-- ARGV[2]  now: the calling client's wall clock in ms
-- ARGV[3]  owner, <clientUUID>:<threadId>
-- ARGV[4..] the value fields
-- Returns  1 when every value still names ARGV[3]: each deadline is pushed to at least now + ARGV[1] and G
--          lives at least ARGV[1] ms; 0 when G is gone or a value names another holder or none (deadlines
--          of the values checked before it may already have been pushed, as in Redisson).
local rcall = redis.call
local lease, now, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
if rcall('exists', KEYS[1]) == 0 then return 0 end
local deadline = lease + now
for i = 4, #ARGV do
  if rcall('hget', KEYS[1], ARGV[i]) ~= owner then return 0 end
  local field = ARGV[i] .. ':' .. owner .. ':expire_time'
  local current = tonumber(rcall('hget', KEYS[1], field))
  if not current or current < deadline then rcall('hset', KEYS[1], field, deadline) end
end
if rcall('pttl', KEYS[1]) < lease then rcall('pexpire', KEYS[1], lease) end
return 1
