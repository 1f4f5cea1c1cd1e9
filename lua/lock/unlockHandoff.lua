-- unlockHandoff: release one hold of an RLock and, when nobody but this process can be waiting for it,
-- hand it straight to this process's longest parked waiter (issue 29, docs/design/direct-handoff.md).
-- Everything up to the release is lock/unlockInner (Redisson's unlockInnerAsync, 3.24.0+); what follows
-- the release is exactly what that waiter's own tryLockInner retry would write.
-- @keys 3
-- KEYS[1]  the lock hash
-- KEYS[2]  the unlock channel, redisson_lock__channel:{N}
-- KEYS[3]  the unlock latch, redisson_unlock_latch:{N}:<32-hex request id>
-- ARGV[1]  the release message, 0 (UNLOCK_MESSAGE)
-- ARGV[2]  lease in ms applied when the lock stays held (the lock object's last lease time)
-- ARGV[3]  owner field, <clientUUID>:<threadId>
-- ARGV[4]  publish command: PUBLISH, or SPUBLISH with sharded pub/sub
-- ARGV[5]  latch TTL in ms
-- ARGV[6]  the subscriptions to KEYS[2] of the releasing process's clients on this server that the server
--          confirmed and that stay subscribed until this script's reply (pinned by the client)
-- ARGV[7]  the candidate's owner field, <clientUUID>:<threadId> (a waiter parked on KEYS[2])
-- ARGV[8]  the candidate's lease in ms (what its own tryLockInner would send)
-- Returns  as lock/unlockInner: 1 released, 0 still held, nil not the owner; and 3 when released and
--          taken by ARGV[7] (count 1, PTTL ARGV[8]) in the same run. The grant happens only when the
--          publish reached exactly ARGV[6] receivers (so no subscriber but the releasing process's) and the
--          master has no replica (a classic PUBLISH also reaches clients subscribed on replicas, which its
--          count does not include). A re-sent run returns its latch's value, so a grant happens once.
local rcall = redis.call
local lock, channel, latch = KEYS[1], KEYS[2], KEYS[3]
local message, lease, owner, publish, latchTtl = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local mine, candidate, candidateLease = tonumber(ARGV[6]), ARGV[7], ARGV[8]

local done = rcall('get', latch)
if done ~= false then
  return tonumber(done)
end
if rcall('hexists', lock, owner) == 0 then
  return nil
end
if rcall('hincrby', lock, owner, -1) > 0 then
  rcall('pexpire', lock, lease)
  rcall('set', latch, 0, 'px', latchTtl)
  return 0
end
rcall('del', lock)
local receivers = rcall(publish, channel, message)
if receivers == mine and string.match(rcall('info', 'replication'), 'connected_slaves:(%d+)') == '0' then
  rcall('hincrby', lock, candidate, 1)
  rcall('pexpire', lock, candidateLease)
  rcall('set', latch, 3, 'px', latchTtl)
  return 3
end
rcall('set', latch, 1, 'px', latchTtl)
return 1
