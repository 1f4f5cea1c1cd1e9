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
        // CLASSES.put("fairLock", "dev.redissonts.handlers.FairLockHandler");
        // CLASSES.put("readLock", ...); CLASSES.put("writeLock", ...);
        // CLASSES.put("semaphore", ...); CLASSES.put("latch", ...); CLASSES.put("fencedLock", ...);
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
