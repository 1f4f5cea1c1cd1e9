package dev.redissonts;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Registry of primitive handlers, keyed by the request's "primitive" field.
 *
 * Handlers are loaded by class name so that a handler for a primitive that a
 * given Redisson version lacks (e.g. RFencedLock before 3.2x) can be left out
 * of that version's build (see the compiler excludes in pom.xml): the
 * primitive is then reported as unsupported instead of breaking the build.
 * To add a primitive: write dev.redissonts.handlers.XxxHandler and add one
 * line below.
 */
public final class Handlers {
    private static final Map<String, String> CLASSES = new LinkedHashMap<>();

    static {
        CLASSES.put("lock", "dev.redissonts.handlers.LockHandler");
        CLASSES.put("lockObject", "dev.redissonts.handlers.SameLockHandler");
        CLASSES.put("multiLock", "dev.redissonts.handlers.MultiLockHandler");
        CLASSES.put("redLock", "dev.redissonts.handlers.MultiLockHandler$RedLockHandler");
        CLASSES.put("fasterMultiLock", "dev.redissonts.handlers.FasterMultiLockHandler");
        CLASSES.put("fencedLock", "dev.redissonts.handlers.FencedLockHandler");
        CLASSES.put("spinLock", "dev.redissonts.handlers.SpinLockHandler");
        CLASSES.put("nonReentrantLock", "dev.redissonts.handlers.NonReentrantLockHandler");
        CLASSES.put("fairLock", "dev.redissonts.handlers.FairLockHandler");
        CLASSES.put("nonReentrantFairLock", "dev.redissonts.handlers.FairLockHandler$NonReentrant");
        CLASSES.put("readLock", "dev.redissonts.handlers.ReadWriteLockHandler$Read");
        CLASSES.put("writeLock", "dev.redissonts.handlers.ReadWriteLockHandler$Write");
        CLASSES.put("readWriteLock", "dev.redissonts.handlers.ReadWriteLockHandler$Whole");
        CLASSES.put("semaphore", "dev.redissonts.handlers.SemaphoreHandler");
        CLASSES.put("countDownLatch", "dev.redissonts.handlers.CountDownLatchHandler");
        CLASSES.put("permitExpirableSemaphore", "dev.redissonts.handlers.PermitExpirableSemaphoreHandler");
    }

    private final Map<String, PrimitiveHandler> loaded = new LinkedHashMap<>();
    private final Map<String, String> unavailable = new LinkedHashMap<>();

    public Handlers() {
        for (Map.Entry<String, String> e : CLASSES.entrySet()) {
            try {
                Class<?> c = Class.forName(e.getValue());
                loaded.put(e.getKey(), (PrimitiveHandler) c.getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException | LinkageError ex) {
                unavailable.put(e.getKey(), ex.toString());
            }
        }
    }

    public PrimitiveHandler get(String primitive) {
        PrimitiveHandler h = loaded.get(primitive);
        if (h == null) {
            String why = unavailable.get(primitive);
            throw new UnsupportedOperationException("primitive '" + primitive + "' is not supported"
                    + (why == null ? "" : " by this peer build (" + why + ")"));
        }
        return h;
    }

    public Map<String, PrimitiveHandler> available() {
        return Collections.unmodifiableMap(loaded);
    }
}
