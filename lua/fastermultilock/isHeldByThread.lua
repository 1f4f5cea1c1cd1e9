-- isHeldByThread: whether one owner holds every value of a FasterMultiLock. Follows Redisson
-- RedissonFasterMultiLock#isHeldByThreadAsync, except that every value is checked: Redisson's loop starts one
-- argument late and never looks at the first value (COMPATIBILITY.md). Reads only.
-- @keys 1
-- KEYS[1]  the group hash G (layout in tryLockInner.lua)
-- ARGV[1]  now: the calling client's wall clock in ms
-- ARGV[2]  owner, <clientUUID>:<threadId>
-- ARGV[3..] the value fields
-- Returns  1 when every value has a deadline of ARGV[2] that has not passed, else 0.
local rcall = redis.call
local now = tonumber(ARGV[1])
if rcall('exists', KEYS[1]) == 0 then return 0 end
for i = 3, #ARGV do
  local deadline = tonumber(rcall('hget', KEYS[1], ARGV[i] .. ':' .. ARGV[2] .. ':expire_time'))
  if not deadline or deadline < now then return 0 end
end
return 1
