package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import org.redisson.api.RedissonClient;

/** primitive "spinLock": RedissonClient.getSpinLock(name) (Redisson 3.15.0+, default back-off). */
public final class SpinLockHandler implements PrimitiveHandler {
    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke(client.getSpinLock(name), method, args);
    }
}
