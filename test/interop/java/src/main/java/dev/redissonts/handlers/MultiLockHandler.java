package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * primitive "multiLock": a RedissonMultiLock over member locks on several Redis servers. The "name" lists
 * the members as {@code lockName@redis://host:port}, comma-separated; each server gets one RedissonClient
 * of its own (made on first use, with the peer's lockWatchdogTimeout), as separate Java processes would
 * have. Each call builds a new multilock object; the owner is the calling peer thread, as in Redisson.
 * Subclass {@link RedLockHandler} ("redLock") builds a RedissonRedLock instead.
 */
public class MultiLockHandler implements PrimitiveHandler {
    private static final Map<String, RedissonClient> CLIENTS = new ConcurrentHashMap<>();

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        String[] specs = name.split(",");
        RLock[] locks = new RLock[specs.length];
        for (int i = 0; i < specs.length; i++) {
            int at = specs[i].lastIndexOf('@');
            if (at <= 0) {
                throw new IllegalArgumentException("member '" + specs[i] + "' must be lockName@redis://host:port");
            }
            locks[i] = clientFor(client, specs[i].substring(at + 1)).getLock(specs[i].substring(0, at));
        }
        return LockMethods.invoke(create(locks), method, args);
    }

    /** The multilock over {@code locks}. */
    protected RLock create(RLock[] locks) {
        return new RedissonMultiLock(locks);
    }

    private static RedissonClient clientFor(RedissonClient main, String address) {
        return CLIENTS.computeIfAbsent(address, a -> {
            Config config = new Config();
            config.useSingleServer().setAddress(a);
            config.setLockWatchdogTimeout(main.getConfig().getLockWatchdogTimeout());
            return Redisson.create(config);
        });
    }

    /** primitive "redLock": RedissonRedLock (deprecated in Redisson, still shipped) over the same members. */
    public static final class RedLockHandler extends MultiLockHandler {
        @Override
        @SuppressWarnings("deprecation")
        protected RLock create(RLock[] locks) {
            return new RedissonRedLock(locks);
        }
    }
}
