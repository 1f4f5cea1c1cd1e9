package dev.redissonts.handlers;

import dev.redissonts.Args;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RLock;

/**
 * The RLock method set, shared by every handler whose primitive is an RLock
 * (lock, fair lock, read/write lock halves, spin lock, ...). Times are ms.
 */
public final class LockMethods {
    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    private LockMethods() {
    }

    public static Object invoke(RLock lock, String method, Args args) throws Exception {
        switch (method) {
            case "lock":
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    lock.lock();
                } else {
                    lock.lock(args.getLong(0), MS);
                }
                return null;
            case "lockInterruptibly":
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    lock.lockInterruptibly();
                } else {
                    lock.lockInterruptibly(args.getLong(0), MS);
                }
                return null;
            case "tryLock":
                args.expectCount(method, 0, 1, 2);
                if (args.size() == 0) {
                    return lock.tryLock();
                } else if (args.size() == 1) {
                    return lock.tryLock(args.getLong(0), MS);
                } else {
                    return lock.tryLock(args.getLong(0), args.getLong(1), MS);
                }
            case "unlock":
                args.expectCount(method, 0);
                lock.unlock();
                return null;
            case "forceUnlock":
                args.expectCount(method, 0);
                return lock.forceUnlock();
            case "isLocked":
                args.expectCount(method, 0);
                return lock.isLocked();
            case "isHeldByCurrentThread":
                args.expectCount(method, 0);
                return lock.isHeldByCurrentThread();
            case "isHeldByThread":
                args.expectCount(method, 1);
                return lock.isHeldByThread(args.getLong(0));
            case "getHoldCount":
                args.expectCount(method, 0);
                return lock.getHoldCount();
            case "remainTimeToLive":
                args.expectCount(method, 0);
                return lock.remainTimeToLive();
            case "getName":
                args.expectCount(method, 0);
                return lock.getName();
            default:
                return ObjectMethods.invoke(lock, method, args);
        }
    }
}
