package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.lang.reflect.Method;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * primitive "nonReentrantLock": RedissonClient.getNonReentrantLock(name) (Redisson 4.4.0+). Looked up by
 * reflection so that the class compiles against every pinned version; where the method is missing the
 * constructor fails and Handlers reports the primitive as unsupported by that build.
 */
public final class NonReentrantLockHandler implements PrimitiveHandler {
    private final Method getter;

    public NonReentrantLockHandler() throws NoSuchMethodException {
        getter = RedissonClient.class.getMethod("getNonReentrantLock", String.class);
    }

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke((RLock) getter.invoke(client, name), method, args);
    }
}
