package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * primitive "semaphore": RedissonClient.getSemaphore(name). Not RLock-shaped:
 * permits have no owner, so the calling thread does not matter except that a
 * blocking acquire occupies it. Times are ms. Only methods every pinned
 * version has (releaseIfExists is 4.0.0+, trySetPermits with a TTL 3.29.0+).
 */
public final class SemaphoreHandler implements PrimitiveHandler {
    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        RSemaphore s = client.getSemaphore(name);
        switch (method) {
            case "acquire":
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    s.acquire();
                } else {
                    s.acquire(args.getInt(0));
                }
                return null;
            case "tryAcquire":
                args.expectCount(method, 0, 1, 2);
                if (args.size() == 0) {
                    return s.tryAcquire();
                } else if (args.size() == 1) {
                    return s.tryAcquire(args.getInt(0));
                }
                return s.tryAcquire(args.getInt(0), args.getLong(1), MS);
            case "release":
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    s.release();
                } else {
                    s.release(args.getInt(0));
                }
                return null;
            case "availablePermits":
                args.expectCount(method, 0);
                return s.availablePermits();
            case "drainPermits":
                args.expectCount(method, 0);
                return s.drainPermits();
            case "trySetPermits":
                args.expectCount(method, 1);
                return s.trySetPermits(args.getInt(0));
            case "addPermits":
                args.expectCount(method, 1);
                s.addPermits(args.getInt(0));
                return null;
            case "delete":
                args.expectCount(method, 0);
                return s.delete();
            default:
                return ObjectMethods.invoke(s, method, args);
        }
    }
}
