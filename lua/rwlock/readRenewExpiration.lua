-- readRenewExpiration: the watchdog's batched renewal of read holds. Follows Redisson ReadLockTask
-- (3.44.0+): only this client's own reader fields and their timeout keys are extended.
-- @keys variadic
-- KEYS[2i-1]  a lock hash N
-- KEYS[2i]    its timeout key prefix, {N} (N when N contains `{`)
-- ARGV[1]     lockWatchdogTimeout in ms
-- then, per pair i: m (a count), followed by m reader fields <clientUUID>:<threadId> of this client on
--             that hash; the first one is the field the scheduler asks about.
-- Returns     one integer per pair: 1 when its first reader field still exists, 0 when it is gone.
--             Every listed field that exists has each of its timeout keys <prefix>:<field>:rwlock_timeout:c
--             (c = its count .. 1) re-expired to ARGV[1]; the hash is re-expired to ARGV[1] when any
--             listed field exists (Redisson answers "any alive" here; the first field's own answer lets
--             the scheduler report exactly which hold was lost).
local rcall = redis.call
local lease = ARGV[1]
local result = {}
local arg = 2
for i = 1, #KEYS, 2 do
  local lock, keyPrefix = KEYS[i], KEYS[i + 1]
  local m = tonumber(ARGV[arg])
  arg = arg + 1
  local anyAlive, firstAlive = false, false
  for j = 1, m do
    local reader = ARGV[arg]
    arg = arg + 1
    local holds = rcall('hget', lock, reader)
    if holds ~= false then
      anyAlive = true
      if j == 1 then
        firstAlive = true
      end
      for c = tonumber(holds), 1, -1 do
        rcall('pexpire', keyPrefix .. ':' .. reader .. ':rwlock_timeout:' .. c, lease)
      end
    end
  end
  if anyAlive then
    rcall('pexpire', lock, lease)
  end
  table.insert(result, firstAlive and 1 or 0)
end
return result
