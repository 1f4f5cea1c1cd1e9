package dev.redissonts;

import org.redisson.api.RedissonClient;

/**
 * One Redisson primitive (lock, fair lock, semaphore, ...). Implementations
 * live in dev.redissonts.handlers, have a public no-arg constructor and are
 * listed in {@link Handlers}. {@link #call} runs on the named Java thread of
 * the request, so thread-owned primitives see real thread identity.
 */
public interface PrimitiveHandler {
    /**
     * @return the method's result: null (void), Boolean, Number, String,
     *     List or Map — anything {@link Json#stringify} can encode
     * @throws UnsupportedOperationException for an unknown method
     */
    Object call(RedissonClient client, String name, String method, Args args) throws Exception;
}
