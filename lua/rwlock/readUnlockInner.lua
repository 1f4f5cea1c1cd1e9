-- readUnlockInner: release one read hold. Mirrors Redisson RedissonReadLock#unlockInnerAsync (3.44.0+).
-- @keys 5
-- KEYS[1]  the lock hash N
-- KEYS[2]  the ReadWriteLock channel, redisson_rwlock:{N}
-- KEYS[3]  this owner's timeout prefix, {N}:<clientUUID>:<threadId>:rwlock_timeout
-- KEYS[4]  the key prefix of every owner's timeout keys, {N} (N when N contains `{`)
-- KEYS[5]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  reader field, <clientUUID>:<threadId>
-- ARGV[3]  publish command: PUBLISH or SPUBLISH
-- ARGV[4]  latch TTL in ms
-- Returns  0 still held by this owner: its count was decremented and stays > 0;
--          2 this owner's last read hold is gone (field deleted) but the lock stays held by others (other
--            readers with a live timeout key, or a writer): not Redisson's reply, which is 0 here too, and
--            which the client would read as "still mine";
--          in both cases the hold's timeout key KEYS[3]:<count before> is deleted and the hash re-expired
--          to the longest remaining read-hold timeout of any owner (or left as is while a writer holds it);
--          1 released: no live read hold and no writer remain, so the hash is deleted and ARGV[1]
--          published (reader fields whose timeout keys all expired are zombies and go with it);
--          nil when ARGV[2] holds no read lock, or the hash is gone (then ARGV[1] is published anyway);
--          a nil sets no latch, so a re-sent run answers nil again.
--          The latch keeps Redisson's values (0 for both 0 and 2, 1); a latch already set by this request
--          id is answered from and nothing else happens: 1 as is, 0 as 2 once ARGV[2] has no field left.
local rcall = redis.call
local lock, channel, timeoutPrefix, keyPrefix, latch = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local message, reader, publish, latchTtl = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local done = rcall('get', latch)
if done ~= false then
  if done == '0' and rcall('hexists', lock, reader) == 0 then
    return 2
  end
  return tonumber(done)
end
local mode = rcall('hget', lock, 'mode')
if mode == false then
  -- "Not held" sets no latch (Redisson's sets 1 here, so its re-sent unlock would answer "released").
  rcall(publish, channel, message)
  return nil
end
if rcall('hexists', lock, reader) == 0 then
  return nil
end
local count = rcall('hincrby', lock, reader, -1)
if count == 0 then
  rcall('hdel', lock, reader)
end
rcall('del', timeoutPrefix .. ':' .. (count + 1))

-- What the client learns when the hash stays: whether this owner still holds (0) or left others holding (2).
local left = count > 0 and 0 or 2
if rcall('hlen', lock) > 1 then
  -- The hash lives as long as its longest live read hold; a writer field has no timeout keys (-2).
  local maxRemain = -3
  for _, field in ipairs(rcall('hkeys', lock)) do
    local holds = tonumber(rcall('hget', lock, field))
    if type(holds) == 'number' then
      for i = holds, 1, -1 do
        maxRemain = math.max(maxRemain, rcall('pttl', keyPrefix .. ':' .. field .. ':rwlock_timeout:' .. i))
      end
    end
  end
  if maxRemain > 0 then
    rcall('pexpire', lock, maxRemain)
    rcall('set', latch, 0, 'px', latchTtl)
    return left
  end
  if mode == 'write' then
    rcall('set', latch, 0, 'px', latchTtl)
    return left
  end
end
rcall('del', lock)
rcall(publish, channel, message)
rcall('set', latch, 1, 'px', latchTtl)
return 1
