package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * primitives "readLock" and "writeLock": the halves of RedissonClient.getReadWriteLock(name), with the
 * RLock method set. The owner is the calling peer thread, so one thread name acting on both halves is one
 * owner (the writer may read; its write unlock then downgrades).
 */
public abstract class ReadWriteLockHandler implements PrimitiveHandler {
    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        return LockMethods.invoke(half(client.getReadWriteLock(name)), method, args);
    }

    /** The half this handler serves. */
    protected abstract RLock half(RReadWriteLock lock);

    /** primitive "readWriteLock": the RReadWriteLock object itself (a RedissonExpirable on the hash). */
    public static final class Whole implements PrimitiveHandler {
        @Override
        public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
            return ObjectMethods.invoke(client.getReadWriteLock(name), method, args);
        }
    }

    /** primitive "readLock". */
    public static final class Read extends ReadWriteLockHandler {
        @Override
        protected RLock half(RReadWriteLock lock) {
            return lock.readLock();
        }
    }

    /** primitive "writeLock". */
    public static final class Write extends ReadWriteLockHandler {
        @Override
        protected RLock half(RReadWriteLock lock) {
            return lock.writeLock();
        }
    }
}
