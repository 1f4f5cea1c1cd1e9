package dev.redissonts.handlers;

import dev.redissonts.Args;
import dev.redissonts.PrimitiveHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * primitive "fasterMultiLock": RedissonClient.getMultiLock(group, values) (Redisson 3.38.0+). The "name" is
 * {@code group|codec|v1,v2,...} with codec StringCodec or LongCodec (values then parsed as longs): the values'
 * field names depend on the client's codec, so each codec gets a RedissonClient of its own, configured like
 * the peer's main client but for the codec. Each call builds a new lock object; the owner is the calling
 * peer thread.
 */
public final class FasterMultiLockHandler implements PrimitiveHandler {
    private static final Map<String, RedissonClient> CLIENTS = new ConcurrentHashMap<>();

    @Override
    public Object call(RedissonClient client, String name, String method, Args args) throws Exception {
        String[] parts = name.split("\\|", 3);
        if (parts.length != 3) {
            throw new IllegalArgumentException("name '" + name + "' must be group|codec|v1,v2,...");
        }
        boolean longs = parts[1].equals("LongCodec");
        if (!longs && !parts[1].equals("StringCodec")) {
            throw new IllegalArgumentException("codec must be StringCodec or LongCodec, got " + parts[1]);
        }
        List<Object> values = new ArrayList<>();
        for (String v : parts[2].split(",")) {
            values.add(longs ? (Object) Long.valueOf(v) : v);
        }
        RedissonClient own = CLIENTS.computeIfAbsent(parts[1], c -> {
            Config config = new Config(client.getConfig());
            Codec codec = longs ? LongCodec.INSTANCE : StringCodec.INSTANCE;
            config.setCodec(codec);
            return Redisson.create(config);
        });
        return LockMethods.invoke(own.getMultiLock(parts[0], values), method, args);
    }
}
