package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import org.redisson.api.RedissonClient;

/** primitive "lock": RedissonClient.getLock(name). */
public final class LockHandler implements PrimitiveHandler {
    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke(client.getLock(name), method, args);
    }
}
