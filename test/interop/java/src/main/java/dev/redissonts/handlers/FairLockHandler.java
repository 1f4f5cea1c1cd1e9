package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.lang.reflect.Method;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * primitive "fairLock": RedissonClient.getFairLock(name), with the RLock method set. The owner is the
 * calling peer thread; a waiting call (lock, tryLock with a wait) joins the fair queue.
 */
public final class FairLockHandler implements PrimitiveHandler {
    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke(client.getFairLock(name), method, args);
    }

    /**
     * primitive "nonReentrantFairLock": RedissonClient.getNonReentrantFairLock(name) (Redisson 4.4.0+),
     * looked up by reflection so that the class compiles against every pinned version; where the method is
     * missing the constructor fails and Handlers reports the primitive as unsupported by that build.
     */
    public static final class NonReentrant implements PrimitiveHandler {
        private final Method getter;

        public NonReentrant() throws NoSuchMethodException {
            getter = RedissonClient.class.getMethod("getNonReentrantFairLock", String.class);
        }

        @Override
        public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
            return LockMethods.invoke((RLock) getter.invoke(client, name), method, args);
        }
    }
}
