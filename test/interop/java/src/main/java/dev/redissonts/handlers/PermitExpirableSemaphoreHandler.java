package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * primitive "permitExpirableSemaphore": RedissonClient.getPermitExpirableSemaphore(name).
 * Permit ids travel as the 32-hex-digit strings Redisson hands out. Times are ms;
 * a lease of -1 means none. Methods that 3.17.7 lacks (several permits at
 * once, releasing a list, acquiredPermits, getPermits: 3.23.4+) are called
 * reflectively, so one source builds for every pinned version; getLeaseTime
 * (3.41.0+) is not offered.
 */
public final class PermitExpirableSemaphoreHandler implements PrimitiveHandler {
    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        RPermitExpirableSemaphore s = client.getPermitExpirableSemaphore(name);
        switch (method) {
            case "acquire":
                // () | (leaseMs)
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    return s.acquire();
                }
                return s.acquire(args.getLong(0), MS);
            case "tryAcquire":
                // () | (waitMs, leaseMs)
                args.expectCount(method, 0, 2);
                if (args.size() == 0) {
                    return s.tryAcquire();
                }
                return s.tryAcquire(args.getLong(0), args.getLong(1), MS);
            case "tryAcquireMany":
                // (permits, waitMs, leaseMs)
                args.expectCount(method, 3);
                return invoke(s, "tryAcquire", new Class<?>[] {int.class, long.class, long.class, TimeUnit.class},
                        args.getInt(0), args.getLong(1), args.getLong(2), MS);
            case "release":
                args.expectCount(method, 1);
                s.release(args.getString(0));
                return null;
            case "releaseMany":
                args.expectCount(method, 1);
                invoke(s, "release", new Class<?>[] {List.class}, ids(args.get(0)));
                return null;
            case "tryRelease":
                args.expectCount(method, 1);
                return s.tryRelease(args.getString(0));
            case "availablePermits":
                args.expectCount(method, 0);
                return s.availablePermits();
            case "acquiredPermits":
                args.expectCount(method, 0);
                return invoke(s, "acquiredPermits", new Class<?>[0]);
            case "getPermits":
                args.expectCount(method, 0);
                return invoke(s, "getPermits", new Class<?>[0]);
            case "trySetPermits":
                args.expectCount(method, 1);
                return s.trySetPermits(args.getInt(0));
            case "addPermits":
                args.expectCount(method, 1);
                s.addPermits(args.getInt(0));
                return null;
            case "updateLeaseTime":
                args.expectCount(method, 2);
                return s.updateLeaseTime(args.getString(0), args.getLong(1), MS);
            case "delete":
                args.expectCount(method, 0);
                return s.delete();
            default:
                return ObjectMethods.invoke(s, method, args);
        }
    }

    /** Calls a method the pinned version may lack; a missing one is reported as unsupported. */
    private static Object invoke(Object target, String method, Class<?>[] types, Object... args) throws Exception {
        Method m;
        try {
            m = RPermitExpirableSemaphore.class.getMethod(method, types);
        } catch (NoSuchMethodException e) {
            throw new UnsupportedOperationException("permitExpirableSemaphore." + method + " is not in this Redisson version");
        }
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw e;
        }
    }

    private static List<String> ids(Object value) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) value) {
            out.add((String) o);
        }
        return out;
    }
}
