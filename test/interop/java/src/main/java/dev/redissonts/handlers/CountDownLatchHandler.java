package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;

/**
 * primitive "countDownLatch": RedissonClient.getCountDownLatch(name). Not
 * RLock-shaped: no owner; a blocking await occupies the calling thread.
 * Times are ms.
 */
public final class CountDownLatchHandler implements PrimitiveHandler {
    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        RCountDownLatch latch = client.getCountDownLatch(name);
        switch (method) {
            case "trySetCount":
                args.expectCount(method, 1);
                return latch.trySetCount(args.getLong(0));
            case "countDown":
                args.expectCount(method, 0);
                latch.countDown();
                return null;
            case "getCount":
                args.expectCount(method, 0);
                return latch.getCount();
            case "await":
                args.expectCount(method, 0, 1);
                if (args.size() == 0) {
                    latch.await();
                    return null;
                }
                return latch.await(args.getLong(0), TimeUnit.MILLISECONDS);
            case "delete":
                args.expectCount(method, 0);
                return latch.delete();
            default:
                return ObjectMethods.invoke(latch, method, args);
        }
    }
}
