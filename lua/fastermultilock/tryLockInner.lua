-- tryLockInner: take or re-enter every value of a FasterMultiLock at once. Same effect as Redisson
-- RedissonFasterMultiLock#tryLockInnerAsync (3.38.0+), also used for its no-wait form (tryLockOnceInnerAsync),
-- whose effects on success are the same.
-- @keys 1
-- KEYS[1]  the group hash G. Per value v (its field name: Base64 HighwayHash-128 of the encoded value):
--            v                              -> the holding owner, <clientUUID>:<threadId>
--            v:<owner>:expire_time          -> that owner's deadline on v, absolute ms (client clock)
--            v:<owner>:lock_count           -> that owner's hold count on v
-- ARGV[1]  lease in ms
-- ARGV[2]  now: the calling client's wall clock in ms
-- ARGV[3]  owner, <clientUUID>:<threadId>
-- ARGV[4..] the value fields
-- Returns  nil when taken (every value now names ARGV[3], its deadline is at least now + lease, its count
--          went up by one, and G lives at least the lease); otherwise the ms until the latest live deadline
--          of another owner among the values, and nothing changes. An expired deadline of another owner
--          does not block: its value is simply taken over.
local rcall = redis.call
local lease, now, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local existed = rcall('exists', KEYS[1]) == 1

if existed then
  local latest = -1
  for i = 4, #ARGV do
    local holder = rcall('hget', KEYS[1], ARGV[i])
    if holder and holder ~= owner then
      local deadline = tonumber(rcall('hget', KEYS[1], ARGV[i] .. ':' .. holder .. ':expire_time'))
      if deadline and deadline > now and deadline > latest then latest = deadline end
    end
  end
  if latest ~= -1 then return latest - now end
end

local deadline = now + lease
for i = 4, #ARGV do
  local mine = ARGV[i] .. ':' .. owner
  rcall('hset', KEYS[1], ARGV[i], owner)
  local current = tonumber(rcall('hget', KEYS[1], mine .. ':expire_time'))
  if not current or current < deadline then rcall('hset', KEYS[1], mine .. ':expire_time', deadline) end
  rcall('hincrby', KEYS[1], mine .. ':lock_count', 1)
end

if existed then
  local pttl = rcall('pttl', KEYS[1])
  if pttl > 0 and lease > pttl then rcall('pexpire', KEYS[1], lease) end
else
  rcall('pexpire', KEYS[1], lease)
end
return nil
