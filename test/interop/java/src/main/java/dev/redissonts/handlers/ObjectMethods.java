package dev.redissonts.handlers;

import dev.redissonts.Args;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.redisson.api.DeletedObjectListener;
import org.redisson.api.ExpiredObjectListener;
import org.redisson.api.RExpirable;
import org.redisson.api.RObject;

/**
 * The RObject / RExpirable methods, for every handler whose Java object has them: the lock family's classes
 * are RedissonExpirable subclasses (their RLock interface does not list these methods, the class implements
 * RExpirable), the semaphores are RExpirable, the latch an RObject only. Times are ms; expireAt takes Unix ms.
 * Only methods every pinned version has.
 *
 * Listeners: "addExpiredListener" / "addDeletedListener" add an ExpiredObjectListener / DeletedObjectListener
 * and return its id at once; "awaitListener" [id, timeoutMs] waits for its first call and returns the name it
 * was called with (a TimeoutException after timeoutMs); "removeListener" [id] removes it.
 */
public final class ObjectMethods {
    /** The first call of each listener added here, by listener id. */
    private static final Map<Integer, CompletableFuture<String>> CALLS = new ConcurrentHashMap<>();

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
            case "addExpiredListener":
            case "addDeletedListener": {
                args.expectCount(method, 0);
                CompletableFuture<String> called = new CompletableFuture<>();
                int id = method.equals("addExpiredListener")
                        ? object.addListener((ExpiredObjectListener) called::complete)
                        : object.addListener((DeletedObjectListener) called::complete);
                CALLS.put(id, called);
                return id;
            }
            case "awaitListener": {
                args.expectCount(method, 2);
                CompletableFuture<String> called = CALLS.get(args.getInt(0));
                if (called == null) {
                    throw new IllegalArgumentException("no listener " + args.getInt(0));
                }
                try {
                    return called.get(args.getLong(1), TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException("listener " + args.getInt(0) + " not called: " + e, e);
                }
            }
            case "removeListener":
                args.expectCount(method, 1);
                CALLS.remove(args.getInt(0));
                object.removeListener(args.getInt(0));
                return null;
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
