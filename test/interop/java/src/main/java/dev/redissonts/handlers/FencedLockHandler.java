package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RFencedLock;
import org.redisson.api.RedissonClient;

/**
 * primitive "fencedLock": RedissonClient.getFencedLock(name) (Redisson 3.19.0+; left out of the 3.17.7
 * build by the pom's peer.exclude). The token methods, then the RLock method set. Times are ms.
 */
public final class FencedLockHandler implements PrimitiveHandler {
    private static final TimeUnit MS = TimeUnit.MILLISECONDS;

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        RFencedLock lock = client.getFencedLock(name);
        switch (method) {
            case "lockAndGetToken":
                args.expectCount(method, 0, 1);
                // The blocking lockAndGetToken(lease, unit) ignores its lease; the async form applies it.
                return args.size() == 0 ? lock.lockAndGetToken() : lock.lockAndGetTokenAsync(args.getLong(0), MS).get();
            case "tryLockAndGetToken":
                args.expectCount(method, 0, 1, 2);
                if (args.size() == 0) {
                    return lock.tryLockAndGetToken();
                } else if (args.size() == 1) {
                    return lock.tryLockAndGetToken(args.getLong(0), MS);
                }
                return lock.tryLockAndGetToken(args.getLong(0), args.getLong(1), MS);
            case "getToken":
                args.expectCount(method, 0);
                return lock.getToken();
            default:
                return LockMethods.invoke(lock, method, args);
        }
    }
}
