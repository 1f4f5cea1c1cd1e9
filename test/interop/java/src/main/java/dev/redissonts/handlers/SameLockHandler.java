package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * primitive "lockObject": like "lock", but every call on a name reuses one
 * RLock object, so per-object state (Redisson's internalLockLeaseTime, the
 * TTL a reentrant unlock leaves behind) carries over between calls.
 */
public final class SameLockHandler implements PrimitiveHandler {
    private final Map<String, RLock> locks = new ConcurrentHashMap<>();

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke(locks.computeIfAbsent(name, client::getLock), method, args);
    }
}
