package dev.redissonts.handlers;

import dev.redissonts.Args;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RExpirable;
import org.redisson.api.RObject;

/**
 * The RObject / RExpirable methods, for every handler whose Java object has them: the lock family's classes
 * are RedissonExpirable subclasses (their RLock interface does not list these methods, the class implements
 * RExpirable), the semaphores are RExpirable, the latch an RObject only. Times are ms; expireAt takes Unix ms.
 * Only methods every pinned version has.
 */
public final class ObjectMethods {
    private ObjectMethods() {
    }

    public static Object invoke(Object target, String method, Args args) {
        if (!(target instanceof RObject)) {
            throw new UnsupportedOperationException("'" + method + "': " + target.getClass().getSimpleName() + " is not an RObject");
        }
        RObject object = (RObject) target;
        switch (method) {
            case "delete":
                args.expectCount(method, 0);
                return object.delete();
            case "isExists":
                args.expectCount(method, 0);
                return object.isExists();
            case "sizeInMemory":
                args.expectCount(method, 0);
                return object.sizeInMemory();
            default:
                break;
        }
        if (!(target instanceof RExpirable)) {
            throw new UnsupportedOperationException("'" + method + "': " + target.getClass().getSimpleName() + " is not an RExpirable");
        }
        RExpirable expirable = (RExpirable) target;
        switch (method) {
            case "expire":
                args.expectCount(method, 1);
                return expirable.expire(args.getLong(0), TimeUnit.MILLISECONDS);
            case "expireAt":
                args.expectCount(method, 1);
                return expirable.expireAt(args.getLong(0));
            case "clearExpire":
                args.expectCount(method, 0);
                return expirable.clearExpire();
            case "remainTimeToLive":
                args.expectCount(method, 0);
                return expirable.remainTimeToLive();
            default:
                throw new UnsupportedOperationException("unknown object method '" + method + "'");
        }
    }
}
